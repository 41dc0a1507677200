// vault: the bytes that describe one generation of a vault file, read before any key.

/// What a reader reads of a vault file before it holds a key: the head of the current generation.
///
/// - Formats 1 and 2: the header, whose preamble gives its length (R-HDR-1, R-HDR-4).
/// - Format 3: the current commit slot's 512 bytes (R3-SLT-4), then the header chunk it names
///   (Spec/format-v3.md §5). The slot's MAC covers its first 480 bytes, and its checksum covers
///   the header chunk's hash, so these bytes identify one commit as a format-2 header identifies
///   one generation.
package struct VaultHead: Sendable {
    /// The head's bytes, as ``VaultHeader/decode(_:fileLength:)`` reads them.
    package let bytes: [UInt8]
    /// Format 3: the other slot is damaged, or holds a newer commit that did not complete (a
    /// crash, or a copy taken mid-commit): a note for the caller, not an error (R3-SLT-4).
    package let skippedIncompleteCommit: Bool
    /// Format 3: the slot of the commit the current one was built on, whose MAC a reader checks
    /// once it holds `HK` (R3-SLT-4; ``SlotChoice/predecessor``).
    package var predecessorSlot: [UInt8]? = nil

    /// Reads the head of a file of `fileLength` bytes through `read(offset, count)`.
    ///
    /// - Throws: `notAVault`, `unsupportedVersion`, `structure`, `truncated` or `headerCorrupt`
    ///   (R-HDR-1, R-HDR-4, R3-SLT-1 to R3-SLT-4, R3-FILE-1); `read`'s error.
    package static func read(fileLength: Int, _ read: (Int, Int) throws -> ArraySlice<UInt8>) throws -> VaultHead {
        let prefix = try read(0, min(Int(CommitSlot.heapStart), fileLength))
        guard isFormat3(prefix) else {
            let length = try VaultHeader.headerLength(preamble: prefix, fileLength: fileLength)
            return VaultHead(bytes: Array(try read(0, length)), skippedIncompleteCommit: false)
        }
        let choice = try SlotChoice.choose(prefix: prefix, fileLength: UInt64(fileLength)) { range in
            BLAKE2b.hash(try read(Int(range.lowerBound), Int(range.upperBound - range.lowerBound)), length: 32)
        }
        let chunk = try withoutActuallyEscaping(read) { read in
            let heap = Format3Heap(source: Reading(read: read), committedLength: choice.slot.committedLength)
            do {
                return try heap.read(choice.slot.header)
            } catch let error as VaultFormatError where error.code == .indexCorrupt {
                throw VaultFormatError(.headerCorrupt, "the header chunk does not match its hash")
            }
        }
        return VaultHead(
            bytes: choice.bytes + chunk,
            skippedIncompleteCommit: choice.skippedIncompleteCommit,
            predecessorSlot: choice.predecessor
        )
    }

    /// Reads the head of a file held in memory.
    package static func read(_ file: [UInt8]) throws(VaultFormatError) -> VaultHead {
        do {
            let source = InMemoryFile(file)
            return try read(fileLength: file.count) { offset, count in try source.read(offset: offset, count: count) }
        } catch let error as VaultFormatError {
            throw error
        } catch {
            throw VaultFormatError(.truncated, "the file ends early")
        }
    }

    /// Whether the first bytes are those of a format-3 file: the magic, major 3 and a slot length
    /// of 512 in slot 0, or, slot 0 being damaged, in slot 1 (R3-SLT-1). A file that names major 3
    /// with another length where the length stands is of a layout this library does not know: it
    /// is read as formats 1 and 2 are, which refuse major 3 as `unsupportedVersion`.
    static func isFormat3(_ prefix: ArraySlice<UInt8>) -> Bool {
        func major3(at start: Int) -> Bool {
            let slot = prefix.dropFirst(start)
            guard slot.count >= 10, slot.prefix(8).elementsEqual(VaultHeader.magic),
                slot.dropFirst(8).prefix(2).elementsEqual([UInt8(CommitSlot.major), 0])
            else { return false }
            let length = slot.dropFirst(12).prefix(4)
            return length.count < 4 || length.elementsEqual([0, 2, 0, 0])
        }
        if prefix.count >= 10 && prefix.prefix(8).elementsEqual(VaultHeader.magic) { return major3(at: 0) }
        return major3(at: CommitSlot.byteCount)
    }

    /// A ``RecordSource`` over a reading closure, for the duration of one head read.
    private struct Reading: RecordSource, @unchecked Sendable {
        let read: (Int, Int) throws -> ArraySlice<UInt8>
        func read(offset: Int, count: Int) throws -> ArraySlice<UInt8> { try read(offset, count) }
    }
}
