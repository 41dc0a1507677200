// vault: merging two copies of one vault into a new generation.

/// Merges two copies of the same vault (same vault ID) into the next generation of one of them.
///
/// Three-way when the common ancestor is given, two-way otherwise. Items are matched by ID;
/// deletion records are tombstones; when both sides changed an item, the newer version keeps the
/// ID and the other is kept as a *conflict copy*, a new item flagged with attribute tag
/// ``conflictMarkerTag``. Records unchanged on both sides are copied as ciphertext.
///
/// ```swift
/// let result = try VaultMerge.merge(ours: mine, theirs: other, base: ancestor)
/// let bytes = result.writer.encode(now: Vault.currentTime())
/// for conflict in result.report.conflicts { print(conflict.itemID, conflict.kind) }
/// ```
///
/// Spec: Spec/merge.md (R-MRG-1 to R-MRG-17).
public enum VaultMerge {
    /// The attribute tag of a conflict copy's marker: the origin item's ID (16 bytes) and the
    /// version it had, `LE64(version)` (in format 3 the losing version's current event). Readers
    /// that do not know it preserve it (R-ATT-2).
    ///
    /// Spec: Spec/merge.md, R-MRG-8.
    public static let conflictMarkerTag: UInt8 = 0x70

    /// The merged generation, ready to encode, and what the merge decided.
    package struct Result: Sendable {
        /// The next generation of the side whose keys were kept (``MergeReport/keysFrom``).
        package var writer: VaultWriter
        /// What the merge decided.
        package let report: MergeReport
    }

    /// Merges `theirs` into `ours`.
    ///
    /// - Parameters:
    ///   - ours: The vault merged into; its keyslots win when both sides changed them.
    ///   - theirs: The vault merged in.
    ///   - base: The common ancestor, for a three-way merge; `nil` for two-way.
    ///   - options: What to do with records that cannot be carried.
    /// - Returns: The writer of the merged generation and the report.
    /// - Throws: ``VaultMergeError`` `differentVaults`, `masterKeyRequired`, `unreadableRecords`;
    ///   ``VaultFormatError`` `recordCorrupt` for a damaged record, `limit`.
    package static func merge(
        ours: VaultSnapshot,
        theirs: VaultSnapshot,
        base: VaultSnapshot? = nil,
        options: MergeOptions = MergeOptions()
    ) throws -> Result {
        var merger = try Merger(ours: ours, theirs: theirs, base: base, options: options)
        return try merger.run()
    }

    /// The ID of the conflict copy of the version of `origin` whose content hash is `hash`: the
    /// origin's first 8 bytes, then 8 bytes of a keyed hash (R-MRG-8).
    static func copyID(of origin: ItemID, hash: [UInt8], key: SecretBytes) -> ItemID {
        let tail = BLAKE2b.hash([Array("VLTcopy1".utf8), origin.bytes, hash], key: key, length: 8)
        return ItemID(high: origin.high, low: tail.reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// The ID under which a merge keeps the time of a deletion that a newer version of `origin`
    /// outlived (R-MRG-9): the origin's first 8 bytes, then its last 8 bytes XOR "VLTshadw".
    public static func shadowID(of origin: ItemID) -> ItemID {
        ItemID(high: origin.high, low: origin.low ^ 0x564C_5473_6861_6477)
    }
}

// MARK: - The merge

/// One merge: the inputs, the writer of the merged generation, and what is left to do and to
/// report.
///
/// An item is first decided (``decide(_:)``, which writes and counts nothing), then applied
/// (``apply(_:)``, the one place where a decision changes the writer and the report's counts).
struct Merger {
    let inputs: Sides<MergeInput>
    let base: MergeInput?
    /// The side whose master key the merged file keeps (R-MRG-11); the writer starts from its file.
    let keysFrom: MergeSide
    /// The side whose keyslots the merged file has (R-MRG-12).
    let keyslotsFrom: MergeSide
    /// `HK` of R-MRG-5, derived from the kept master key.
    let hashKey: SecretBytes
    let options: MergeOptions
    var writer: VaultWriter
    /// Work that waits until every item is decided.
    var pending = MergePending()
    /// What the report counts, as decisions are applied.
    var tally = MergeTally()
    /// Whether the merged file is format 3, whose items are decided by their histories (R-MRG-18).
    let historyMode: Bool

    init(ours: VaultSnapshot, theirs: VaultSnapshot, base: VaultSnapshot?, options: MergeOptions) throws {
        // R-MRG-1: one vault.
        for other in [theirs] + (base.map { [$0] } ?? []) where other.header.vaultID != ours.header.vaultID {
            throw VaultMergeError(.differentVaults, "the files hold different vaults (their vault IDs differ)")
        }
        // R-MRG-2: every version must be comparable and sealable.
        guard let oursMaster = ours.keys.master?.secret, let theirsMaster = theirs.keys.master?.secret,
            base.map({ $0.keys.hasMasterKey }) ?? true
        else {
            throw VaultMergeError(.masterKeyRequired, "a merge needs each file opened with a password or key file")
        }
        let sameKeys = oursMaster == theirsMaster
        inputs = Sides(
            ours: try MergeInput(ours, side: .ours, sealedUnder: .ours),
            theirs: try MergeInput(theirs, side: .theirs, sealedUnder: sameKeys ? .ours : .theirs)
        )
        let baseInput = try base.map {
            let master = $0.keys.master!.secret
            return try MergeInput(
                $0,
                side: nil,
                sealedUnder: master == oursMaster ? .ours : (master == theirsMaster ? .theirs : nil)
            )
        }
        self.base = baseInput
        self.options = options
        // R-MRG-11: a merge never changes master key on its own judgement, except to keep the key
        // that ours alone changed since the ancestor (the person merging rekeyed).
        if sameKeys {
            keysFrom = .ours
        } else if let choice = options.masterKey {
            keysFrom = choice
        } else if baseInput?.sealedUnder == .theirs {
            keysFrom = .ours
        } else {
            throw VaultMergeError(
                .masterKeysDiffer,
                baseInput?.sealedUnder == .ours
                    ? "the other file was rekeyed (its master key differs from the ancestor's and ours); "
                        + "choose the key to keep"
                    : "the two files have different master keys (one was rekeyed); choose the key to keep"
            )
        }
        let kept = inputs[keysFrom].snapshot
        hashKey = BLAKE2b.deriveKey(from: kept.keys.master!.secret, id: 1, context: "VLTmerge")
        writer = try VaultWriter(updating: kept)
        let generation = max(ours.header.generation, theirs.header.generation)
        guard generation < UInt64.max - 1 else { throw VaultFormatError(.limit, "the generation counter is exhausted") }
        writer.raiseGeneration(to: generation + 1)
        if theirs.header.followsVersion11Rules || ours.header.followsVersion11Rules { writer.upgradeToVersion11() }
        // R-MRG-14: the merged file is format 3 when either input is.
        if theirs.header.isVersion3 || ours.header.isVersion3 { try writer.upgradeToVersion3() }
        historyMode = writer.header.isVersion3
        // R-MRG-18: theirs older than the ancestor (by the items' histories) brings no header change:
        // its keyslots and recipients are the ones the ancestor's descendants replaced.
        var theirsIsOlder = false
        if historyMode, let baseInput { theirsIsOlder = Self.isOlder(inputs.theirs, than: baseInput) }
        // R-MRG-12: keyslots.
        if sameKeys, !theirsIsOlder, let base, base.keys.master!.secret == oursMaster,
            base.header.keyslots == ours.header.keyslots,
            theirs.header.keyslots != ours.header.keyslots,
            !Self.lowersPasswordCost(from: ours.header.keyslots, to: theirs.header.keyslots)
        {
            try writer.setKeyslots(theirs.header.keyslots)
            // A TPM2 binding goes with the keyslot it names (Spec/tpm2.md R-TPM-5).
            let binding = TPM2Binding.fieldType
            writer.setUnknownFields(
                writer.header.unknownFields.filter { $0.type != binding }
                    + theirs.header.unknownFields.filter { $0.type == binding }
            )
            keyslotsFrom = .theirs
        } else {
            keyslotsFrom = keysFrom
        }
        if sameKeys {
            // R-MRG-16: the access groups first, so that every limited stanza names a domain of
            // the merged header, and that domain holds the same group on both sides.
            try Self.mergeAccessGroups(ours: ours, theirs: theirs, into: &writer)
            tally.recipientChanges =
                theirsIsOlder ? 0 : try Self.mergeRecipients(ours: ours, theirs: theirs, base: base, into: &writer)
        }
    }

    mutating func run() throws -> VaultMerge.Result {
        let ours = inputs.ours
        let theirs = inputs.theirs
        if let base, !historyMode {
            // R-MRG-17: what theirs changed since the ancestor must be newer than the ancestor.
            // Ours is the file merged into, kept where theirs changed nothing: it need not descend
            // (a cherry-pick onto an older branch, a rebase that drops a commit).
            try checkTheirsDescends(from: base)
        }
        // Every item ID either side holds in any state (Spec/merge.md section 4), each decided once.
        for position in 0..<ours.index.count {
            try apply(try decideItem(ours.index.itemID(at: position)))
        }
        for position in 0..<theirs.index.count {
            let id = theirs.index.itemID(at: position)
            if ours.positions.position(of: id) == nil { try apply(try decideItem(id)) }
        }
        for input in inputs.both {
            for id in input.tombs.keys
            where ours.positions.position(of: id) == nil && theirs.positions.position(of: id) == nil {
                if input === theirs, ours.tombs[id] != nil { continue }  // done from ours
                try apply(try decideItem(id))
            }
        }
        for adoption in pending.adoptions {
            let placement = try placement(of: adoption.id, from: adoption.side, position: adoption.position)
            let history = historyMode ? adoption.merged ?? inputs[adoption.side].histories[adoption.position] : nil
            try place(adoption.id, placement, history: history)
        }
        for copy in pending.copies { try placeCopy(copy) }
        try removeCopiesOfWinners()
        try recordShadows()
        try removeOutdatedCopies()
        return VaultMerge.Result(writer: writer, report: report())
    }

    /// Decides item `id`: by the histories in format 3 (R-MRG-18), else by R-MRG-3 to R-MRG-9.
    func decideItem(_ id: ItemID) throws -> ItemDecision {
        historyMode ? try decideByHistory(id) : try decide(id)
    }

    /// The report, from the tally.
    func report() -> MergeReport {
        MergeReport(
            generation: writer.header.generation,
            threeWay: base != nil,
            keysFrom: keysFrom,
            keyslotsFrom: keyslotsFrom,
            added: tally.added,
            updated: tally.updated,
            deleted: tally.deleted,
            otherChanges: tally.otherChanges,
            recipientChanges: tally.recipientChanges,
            conflicts: tally.conflicts.sorted { $0.itemID < $1.itemID },
            droppedUnreadable: tally.droppedUnreadable.sorted(),
            // R-MRG-11: theirs' changes made under a master key the merged file does not keep.
            changedUnderRetiredKey: keysFrom == .ours && inputs.theirs.sealedUnder != .ours
                ? tally.theirsChanges.sorted() : []
        )
    }
}
