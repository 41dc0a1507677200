// vault: format-3 commit slots, and which one a reader opens.

/// One of the two 512-byte commit slots at the start of a format-3 file.
///
/// Spec: Spec/format-v3.md, §4 (R3-SLT-1 to R3-SLT-4; design draft).
package struct CommitSlot: Hashable, Sendable {
    /// A slot's size.
    package static let byteCount = 512
    /// Where the heap starts: after both slots.
    package static let heapStart = UInt64(2 * byteCount)
    /// The major version of format 3.
    package static let major: UInt16 = 3
    /// The highest minor version this implementation knows.
    package static let minor: UInt16 = 0
    /// Where the slot's own index byte stands (R3-SLT-2).
    package static let indexOffset = 160
    private static let checksumOffset = 448
    private static let macOffset = 480

    package var minor: UInt16 = CommitSlot.minor
    /// The slot's own position, 0 or 1 (R3-SLT-2): a slot is only read where it was written.
    package var index: UInt8 = 0
    package var generation: UInt64
    /// Where this commit's appended bytes start.
    package var commitStart: UInt64
    /// The end of this commit's bytes.
    package var committedLength: UInt64
    /// `BLAKE2b(32, "", file[commitStart : committedLength])`.
    package var commitHash: [UInt8]
    package var header: ChunkReference
    package var root: ChunkReference

    package init(
        minor: UInt16 = CommitSlot.minor,
        index: UInt8 = 0,
        generation: UInt64,
        commitStart: UInt64,
        committedLength: UInt64,
        commitHash: [UInt8],
        header: ChunkReference,
        root: ChunkReference
    ) {
        self.minor = minor
        self.index = index
        self.generation = generation
        self.commitStart = commitStart
        self.committedLength = committedLength
        self.commitHash = commitHash
        self.header = header
        self.root = root
    }

    /// The slot of an in-place commit on top of this one (Spec/format-v3.md §9.1, step 4): at the
    /// other position (`1 − i`), its commit `appended`, the bytes that follow this commit's
    /// `committedLength`, fingerprinted by their BLAKE2b.
    package func next(
        minor: UInt16,
        generation: UInt64,
        appended: [UInt8],
        header: ChunkReference,
        root: ChunkReference
    ) -> CommitSlot {
        CommitSlot(
            minor: minor,
            index: 1 - index,
            generation: generation,
            commitStart: committedLength,
            committedLength: committedLength + UInt64(appended.count),
            commitHash: BLAKE2b.hash(appended, length: 32),
            header: header,
            root: root
        )
    }

    /// The slot's 512 bytes; `mac` computes the 32-byte MAC of the first 480 under `HK`.
    package func encoded(mac: ([UInt8]) -> [UInt8]) -> [UInt8] {
        var writer = ByteWriter(capacity: Self.byteCount)
        writer.append(VaultHeader.magic)
        writer.u16(Self.major)
        writer.u16(minor)
        writer.u32(UInt32(Self.byteCount))
        writer.u64(generation)
        writer.u64(commitStart)
        writer.u64(committedLength)
        writer.append(commitHash)
        header.encode(into: &writer)
        root.encode(into: &writer)
        writer.u8(index)
        writer.append([UInt8](repeating: 0, count: Self.checksumOffset - writer.bytes.count))
        writer.append(BLAKE2b.hash(writer.bytes, length: 32))
        let tag = mac(writer.bytes)
        precondition(tag.count == 32, "a slot MAC is 32 bytes")
        writer.append(tag)
        return writer.bytes
    }

    /// What a reader finds in one slot's 512 bytes (R3-SLT-2).
    package enum Found: Hashable, Sendable {
        /// 512 zero bytes.
        case empty
        /// Neither empty nor well-formed; `reason` says which check failed.
        case damaged(reason: String)
        /// Its checksum and fields are sound; `bytes` are the 480 bytes its MAC covers and the MAC.
        case wellFormed(CommitSlot, bytes: [UInt8])
    }

    /// Reads the slot at `position` (0 or 1) without a key (R3-SLT-2).
    package static func read(_ bytes: ArraySlice<UInt8>, at position: Int) -> Found {
        precondition(bytes.count == byteCount, "a slot is 512 bytes")
        if bytes.allSatisfy({ $0 == 0 }) { return .empty }
        let raw = Array(bytes)
        guard SecretMemory.equal(BLAKE2b.hash(raw[..<checksumOffset], length: 32), raw[checksumOffset..<macOffset])
        else { return .damaged(reason: "its checksum does not match") }
        var reader = ByteReader(raw)
        do {
            guard try reader.read(8, "magic").elementsEqual(VaultHeader.magic) else {
                return .damaged(reason: "it does not start with the magic bytes")
            }
            guard try reader.u16("major version") == major else {
                return .damaged(reason: "its major version is not 3")
            }
            let minor = try reader.u16("minor version")
            guard try reader.u32("slot length") == UInt32(byteCount) else {
                return .damaged(reason: "its slot length is not 512")
            }
            let generation = try reader.u64("generation")
            var slot = CommitSlot(
                minor: minor,
                index: 0,
                generation: generation,
                commitStart: try reader.u64("commit start"),
                committedLength: try reader.u64("committed length"),
                commitHash: Array(try reader.read(32, "commit hash")),
                header: try ChunkReference.decode(from: &reader),
                root: try ChunkReference.decode(from: &reader)
            )
            slot.index = try reader.u8("slot index")
            guard Int(slot.index) == position else {
                return .damaged(reason: "it says it is slot \(slot.index), and it stands at slot \(position)")
            }
            // Bytes a later minor version may use are only checked in files of this one.
            if minor == Self.minor, raw[(indexOffset + 1)..<checksumOffset].contains(where: { $0 != 0 }) {
                return .damaged(reason: "its reserved bytes are not zero")
            }
            guard slot.generation >= 1 else { return .damaged(reason: "its generation is 0") }
            guard heapStart <= slot.commitStart, slot.commitStart <= slot.committedLength else {
                return .damaged(reason: "its commit range is not inside the heap")
            }
            return .wellFormed(slot, bytes: raw)
        } catch {
            return .damaged(reason: error.reason)
        }
    }

    /// Whether this slot's commit is wholly in a file of `fileLength` bytes (R3-SLT-3).
    /// `hash` returns the BLAKE2b-256 of the file's bytes in a range.
    package func isComplete(
        fileLength: UInt64,
        hash: (Range<UInt64>) throws -> [UInt8]
    ) throws -> Bool {
        guard committedLength <= fileLength else { return false }
        return SecretMemory.equal(try hash(commitStart..<committedLength), commitHash)
    }
}

/// The slot a reader opens, and whether the other one holds a commit that did not complete.
///
/// Spec: Spec/format-v3.md, §4 (R3-SLT-4; design draft).
package struct SlotChoice: Hashable, Sendable {
    /// 0 or 1.
    package var index: Int
    package var slot: CommitSlot
    /// The 512 bytes, for the MAC check once a key is known (R3-SLT-5).
    package var bytes: [UInt8]
    /// Whether the other slot is damaged, or holds a newer commit that did not complete (a crash or
    /// a copy taken mid-commit), or the current commit is in place and the other slot does not hold
    /// the commit it was built on (the newest commit cut off): a note for the caller, not an error.
    package var skippedIncompleteCommit: Bool
    /// The other slot's 512 bytes when the current commit is in place and that slot, checked
    /// without a key, holds the commit it was built on. Its MAC is checked once `HK` is known
    /// (R3-SLT-4): a writer without `HK` can forge every other field of a slot.
    package var predecessor: [UInt8]? = nil

    /// Chooses the current slot of a format-3 file (R3-SLT-1, R3-SLT-4).
    ///
    /// - Parameters:
    ///   - prefix: The file's first 1024 bytes, or all of it when it is shorter.
    ///   - fileLength: The file's length.
    ///   - hash: The BLAKE2b-256 of the file's bytes in a range.
    /// - Throws: `notAVault`, `truncated`, `headerCorrupt` or `structure`, as R3-SLT-1 and
    ///   R3-SLT-4 say; `hash`'s error.
    package static func choose(
        prefix: ArraySlice<UInt8>,
        fileLength: UInt64,
        hash: (Range<UInt64>) throws -> [UInt8]
    ) throws -> SlotChoice {
        // Slot 1's magic also marks a vault: a file whose first slot alone is damaged is still one.
        let magic = prefix.prefix(8)
        let secondMagic = prefix.dropFirst(CommitSlot.byteCount).prefix(8)
        guard
            !magic.isEmpty,
            magic.elementsEqual(VaultHeader.magic.prefix(magic.count))
                || secondMagic.elementsEqual(VaultHeader.magic)
        else {
            throw VaultFormatError(.notAVault, "this is not a vault file (wrong magic bytes)")
        }
        guard prefix.count >= Int(CommitSlot.heapStart) else {
            throw VaultFormatError(.truncated, "the file ends inside its commit slots")
        }
        let start = prefix.startIndex
        var found = [0, 1].map { index in
            CommitSlot.read(prefix[(start + index * CommitSlot.byteCount)...].prefix(CommitSlot.byteCount), at: index)
        }
        if found[0] == .empty { found[0] = .damaged(reason: "the first slot is empty") }
        var complete: [(index: Int, slot: CommitSlot, bytes: [UInt8])] = []
        var cutShort = false
        let wellFormed = found.enumerated().compactMap { index, state -> (Int, CommitSlot, [UInt8])? in
            guard case .wellFormed(let slot, let bytes) = state else { return nil }
            return (index, slot, bytes)
        }
        // The newer commit first. Once it is complete, an older one cannot become current, cannot
        // tie with it and is never reported (R3-SLT-4), so its bytes are not hashed: an open hashes
        // one commit's appended bytes, not two. Only slots of equal generations are both checked.
        for (index, slot, bytes) in wellFormed.sorted(by: { $0.1.generation > $1.1.generation }) {
            if let newer = complete.first, newer.slot.generation > slot.generation { break }
            if try slot.isComplete(fileLength: fileLength, hash: hash) {
                complete.append((index, slot, bytes))
            } else if slot.committedLength > fileLength {
                cutShort = true
            }
        }
        guard let current = complete.max(by: { $0.slot.generation < $1.slot.generation }) else {
            if cutShort { throw VaultFormatError(.truncated, "the file ends before its last commit") }
            let reasons = found.compactMap { state -> String? in
                if case .damaged(let reason) = state { return reason }
                return nil
            }
            throw VaultFormatError(
                .headerCorrupt,
                "no commit slot is complete" + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: "; ")))")
            )
        }
        if complete.count == 2, complete[0].slot.generation == complete[1].slot.generation {
            throw VaultFormatError(.structure, "both commit slots hold generation \(current.slot.generation)")
        }
        let otherIndex = 1 - current.index
        // An in-place commit was built on the commit of the other slot (§9.1), which no writer
        // overwrites before it writes the next one: that slot empty, or holding a slot that does
        // not end where the current commit starts or is not of a lower generation, means the newest
        // commit was cut off by hand (512 bytes zeroed, or replaced by another vault's slot), which
        // is noted as a torn commit is (R3-SLT-4). Its commit need not be complete: a damaged byte
        // in an older commit is one item's damage, not a cut.
        let inPlace = current.slot.commitStart < current.slot.committedLength
        let skipped: Bool
        var predecessor: [UInt8]?
        switch found[otherIndex] {
        case .empty: skipped = inPlace
        case .damaged: skipped = true
        case .wellFormed(let other, let bytes):
            let whole = complete.contains { $0.index == otherIndex }
            let builtOn =
                other.committedLength == current.slot.commitStart && other.generation < current.slot.generation
            skipped = other.generation > current.slot.generation && !whole || inPlace && !builtOn
            if inPlace && !skipped { predecessor = bytes }
        }
        return SlotChoice(
            index: current.index,
            slot: current.slot,
            bytes: current.bytes,
            skippedIncompleteCommit: skipped,
            predecessor: predecessor
        )
    }
}
