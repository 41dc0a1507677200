// vault: the format-3 merge fixtures: replicas of one vault and what merging them gives
// (Spec/merge.md R-MRG-18, Spec/format-v3.md §8).

import VaultFormat

/// The merge of Spec/merge.md R-MRG-18 over items as plain values, written from the spec text
/// for the fixtures' expected results (not through ``VaultMerge``, which the tests check against
/// it). It covers what the merge fixtures hold: histories that descend, are equal or are absent on
/// one side; concurrent versions decided by rank with a conflict copy (R-MRG-7, R-MRG-8);
/// a concurrent version and deletion, with the shadow deletion of R-MRG-9; two deletions.
struct MergeModel {
    /// A version of an item: its content as a fixture lists it, and its history.
    struct Version {
        var item: FixtureItem
        var itemClass: ItemClass
        var protectionClass: ProtectionClass
        var attributes: ItemAttributes
        var secret: [UInt8]
        var history: [[UInt8]]
        var copyOf: ItemID? = nil
    }

    /// One item's state.
    enum State {
        case live(Version)
        case deleted(deletedAt: Int64, history: [[UInt8]])

        var history: [[UInt8]] {
            switch self {
            case .live(let version): version.history
            case .deleted(_, let history): history
            }
        }
    }

    var states: [ItemID: State]
    /// The conflicts a merge of two replicas lists: (item, kind).
    var conflicts: [(ItemID, String)] = []

    /// `HK` of R-MRG-5: `Derive(MK, 1, "VLTmerge")`.
    let mergeKey: SecretBytes

    // MARK: - Reading a replica

    /// A replica's states, as a merge reads them: a format-3 file's entries, or an earlier file's
    /// entries with the one event `LE64(version)` and its deletion records with a derived event
    /// (Spec/format-v3.md §11).
    init(_ file: [UInt8], mergeKey: SecretBytes) throws {
        self.mergeKey = mergeKey
        let snapshot = try VaultSnapshot.open(file, with: .password(FixtureCatalogV3.password))
        let index = try snapshot.index
        let items = try snapshot.items(includeSecrets: true)
        let contents = try snapshot.format3?.contents()
        states = [:]
        for (position, decoded) in items.enumerated() {
            let entry = decoded.entry
            precondition(index.entry(at: position).itemID == entry.itemID, "items in index order")
            let secret = decoded.secret!.copyBytes()
            let draft = ItemDraft(
                id: entry.itemID,
                itemClass: entry.itemClass,
                protectionClass: entry.protectionClass,
                attributes: decoded.attributes,
                secret: decoded.secret!
            )
            let history =
                contents.map { $0.histories[position].events.map(\.bytes) } ?? [LE.bytes(entry.version, size: 8)]
            states[entry.itemID] = .live(
                Version(
                    item: FixtureMaker.expected(draft, secret: secret),
                    itemClass: entry.itemClass,
                    protectionClass: entry.protectionClass,
                    attributes: decoded.attributes,
                    secret: secret,
                    history: history
                )
            )
        }
        if let contents {
            for (id, deletion) in contents.deletions {
                states[id] = .deleted(deletedAt: deletion.deletedAt, history: deletion.history.events.map(\.bytes))
            }
        } else {
            for deletion in index.deletions {
                states[deletion.itemID] = .deleted(
                    deletedAt: deletion.deletedAt,
                    history: [Self.migratedDeletionEvent(deletion.itemID, deletion.deletedAt)]
                )
            }
        }
    }

    private init(states: [ItemID: State], mergeKey: SecretBytes) {
        self.states = states
        self.mergeKey = mergeKey
    }

    // MARK: - Formulas of the spec

    /// `BLAKE2b(8, "", label || message)`, all zero replaced by `0x01 || 0x00*7`.
    static func event(_ label: String, _ message: [UInt8]) -> [UInt8] {
        let bytes = BLAKE2b.hash(Array(label.utf8) + message, length: 8)
        return bytes.allSatisfy { $0 == 0 } ? [1] + [UInt8](repeating: 0, count: 7) : bytes
    }

    /// R3-MIG-1's event of a migrated deletion, and of R-MRG-9's shadow deletion.
    static func migratedDeletionEvent(_ id: ItemID, _ deletedAt: Int64) -> [UInt8] {
        event("VLT3mdel", id.bytes + LE.bytes(UInt64(bitPattern: deletedAt), size: 8))
    }

    /// R3-EV-3: `absorb(K, O)`, the history of the kept state `K` after it takes in `O`'s.
    static func absorb(_ kept: [[UInt8]], _ other: [[UInt8]]) -> [[UInt8]] {
        if other.allSatisfy({ kept.contains($0) }) { return kept }
        var out = [kept[0]] + (kept.contains(other[0]) ? [] : [other[0]]) + kept.dropFirst()
        for event in other.dropFirst() where !out.contains(event) { out.append(event) }
        return Array(out.prefix(16))
    }

    /// The state `state` with its history after taking in `other`'s (R-MRG-18).
    static func absorbing(_ state: State, _ other: State) -> State {
        switch state {
        case .live(var version):
            version.history = absorb(version.history, other.history)
            return .live(version)
        case .deleted(let time, let history):
            return .deleted(deletedAt: time, history: absorb(history, other.history))
        }
    }

    /// R-MRG-5's content hash `h`.
    func contentHash(_ version: Version) -> [UInt8] {
        let attributes = try! AttributesCodec.encode(version.attributes, itemClass: version.itemClass)
        let classByte = version.itemClass.rawValue << 4 | version.protectionClass.rawValue
        return BLAKE2b.hash(
            [classByte] + LE.bytes(UInt64(attributes.count), size: 4) + attributes + version.secret,
            key: mergeKey,
            length: 32
        )
    }

    /// R-MRG-5's rank: time, liveness, record version (the current event read as `LE64`), `h`.
    func rank(_ version: Version) -> (Int64, Int, UInt64, [UInt8]) {
        (version.attributes.modificationDate, 1, LE.read(version.history[0], at: 0, size: 8), contentHash(version))
    }

    static func isBelow(_ a: (Int64, Int, UInt64, [UInt8]), _ b: (Int64, Int, UInt64, [UInt8])) -> Bool {
        if a.0 != b.0 { return a.0 < b.0 }
        if a.1 != b.1 { return a.1 < b.1 }
        if a.2 != b.2 { return a.2 < b.2 }
        return a.3.lexicographicallyPrecedes(b.3)
    }

    /// R-MRG-9's shadow ID: the first 8 bytes, then the last 8 XOR "VLTshadw".
    static func shadowID(_ id: ItemID) -> ItemID {
        let bytes = id.bytes
        return ItemID(bytes: Array(bytes[0..<8]) + zip(bytes[8..<16], Array("VLTshadw".utf8)).map { $0 ^ $1 })
    }

    /// R-MRG-8: the conflict copy of the losing version `lost` of item `origin`.
    func copy(of origin: ItemID, _ lost: Version) -> (ItemID, Version) {
        let tail = BLAKE2b.hash(Array("VLTcopy1".utf8) + origin.bytes + contentHash(lost), key: mergeKey, length: 8)
        let id = ItemID(bytes: Array(origin.bytes[0..<8]) + tail)
        var attributes = lost.attributes
        attributes.account += " (conflict \(id.description.suffix(8)))"
        attributes.preserved =
            (attributes.preserved.filter { $0.tag != 0x70 }
            + [PreservedAttribute(tag: 0x70, value: origin.bytes + lost.history[0])]).sorted { $0.tag < $1.tag }
        let draft = ItemDraft(
            id: id,
            itemClass: lost.itemClass,
            protectionClass: lost.protectionClass,
            attributes: attributes,
            secret: SecretBytes(bytes: lost.secret)
        )
        let version = Version(
            item: FixtureMaker.expected(draft, secret: lost.secret),
            itemClass: lost.itemClass,
            protectionClass: lost.protectionClass,
            attributes: attributes,
            secret: lost.secret,
            history: Array(([Self.event("VLT3copy", id.bytes + lost.history[0])] + lost.history).prefix(16)),
            copyOf: origin
        )
        return (id, version)
    }

    // MARK: - Merging

    /// R-MRG-18: `ours` merged with `theirs`.
    static func merge(_ ours: MergeModel, _ theirs: MergeModel) -> MergeModel {
        var out = MergeModel(states: [:], mergeKey: ours.mergeKey)
        var copies: [(ItemID, Version)] = []
        for id in Set(ours.states.keys).union(theirs.states.keys).sorted() {
            guard let a = ours.states[id] else {
                out.states[id] = theirs.states[id]
                continue
            }
            guard let b = theirs.states[id] else {
                out.states[id] = a
                continue
            }
            let (ha, hb) = (a.history, b.history)
            // The kept state takes in the other's history, whatever decided (R3-EV-3).
            if ha[0] == hb[0] || ha.dropFirst().contains(hb[0]) {
                out.states[id] = absorbing(a, b)  // one write (the fixtures hold no two writes with one event)
            } else if hb.dropFirst().contains(ha[0]) {
                out.states[id] = absorbing(b, a)
            } else {
                switch (a, b) {
                case (.live(let x), .live(let y)):
                    let (won, lost) = isBelow(ours.rank(x), ours.rank(y)) ? (y, x) : (x, y)
                    out.states[id] = absorbing(.live(won), .live(lost))
                    out.conflicts.append((id, "bothChanged"))
                    if !lost.protectionClass.isDeviceBound { copies.append(ours.copy(of: id, lost)) }
                case (.live(let version), .deleted(let deletedAt, _)), (.deleted(let deletedAt, _), .live(let version)):
                    out.conflicts.append((id, "changedAndDeleted"))
                    let (deletion, live) = a.history[0] == version.history[0] ? (b, a) : (a, b)
                    out.states[id] =
                        isBelow((deletedAt, 0, 0, []), ours.rank(version))
                        ? absorbing(live, deletion) : absorbing(deletion, live)
                case (.deleted(let t, _), .deleted(let u, _)):
                    let theirsLater = t != u ? u > t : ha[0].lexicographicallyPrecedes(hb[0])
                    out.states[id] = theirsLater ? absorbing(b, a) : absorbing(a, b)
                }
            }
        }
        for (id, copy) in copies where out.states[id] == nil { out.states[id] = .live(copy) }
        // R-MRG-9: an item that ends live keeps the latest deletion either side holds of it, or of
        // its shadow (the later time, then the greater event), with its history, under its shadow
        // ID.
        for (id, state) in out.states {
            guard case .live = state else { continue }
            let shadow = shadowID(id)
            var latest: (time: Int64, history: [[UInt8]])?
            for side in [ours, theirs] {
                for key in [id, shadow] {
                    guard case .deleted(let time, let history)? = side.states[key] else { continue }
                    if let held = latest,
                        held.time > time
                            || (held.time == time && !held.history[0].lexicographicallyPrecedes(history[0]))
                    {
                        continue
                    }
                    latest = (time, history)
                }
            }
            guard let latest else { continue }
            if case .deleted(let held, _)? = out.states[shadow], held >= latest.time { continue }
            out.states[shadow] = .deleted(deletedAt: latest.time, history: latest.history)
        }
        return out
    }

    /// What the merged state of each ID is to each replica's (`equal`, `descends`, `absent`).
    static func relation(of merged: [[UInt8]], to replica: State?) -> String {
        guard let replica else { return "absent" }
        if replica.history[0] == merged[0] { return "equal" }
        precondition(merged.dropFirst().contains(replica.history[0]), "a merged state descends from every replica's")
        return "descends"
    }
}

extension FixtureCatalogV3 {
    static func merges(_ c: inout FixtureCatalog.Builder) throws {
        let m = try maker("merge base")
        let x = try m.add(service: "db", account: "alice", secret: "x0")
        let y = try m.add(service: "mail", account: "bob", secret: "y0")
        let z = try m.add(
            .genericPassword,
            .always,
            attributes: .init(service: "wifi", account: "home"),
            secret: Array("z0".utf8)
        )
        let base = (name: "merge_base.vault", bytes: try m.bytes(minutes: 1))
        c.files[base.name] = base.bytes
        let key = BLAKE2b.deriveKey(from: m.master.secret, id: 1, context: "VLTmerge")
        let random = SeededRandom(seed: seedPrefix + "merge replicas")
        func edit(_ file: [UInt8], _ minutes: Int64, _ body: (inout VaultWriter) throws -> Void) throws -> [UInt8] {
            var writer = try VaultWriter(updating: try VaultSnapshot.open(file, with: .password(password)))
            // The frozen files predate R-DEL-3's SHOULD (a shadow kept for a re-added item); they
            // stay valid without it, and the generator must reproduce them byte for byte.
            writer.keepsDeletionShadows = false
            try body(&writer)
            switch try writer.encodeGeneration(now: time(minutes), random: random) {
            case .whole(let bytes): return bytes
            case .inPlace(let commit): return commit.applied(to: file)
            }
        }
        func setX(_ secret: String, _ minutes: Int64) -> (inout VaultWriter) throws -> Void {
            {
                _ = try $0.put(
                    draft(x.id, service: "db", account: "alice", secret: secret, minutes: minutes, created: 0),
                    random: random
                )
            }
        }
        func removeX(_ minutes: Int64) -> (inout VaultWriter) throws -> Void {
            { _ = try $0.remove(x.id, now: time(minutes), random: random) }
        }

        let oneSided = try edit(base.bytes, 10, setX("x1", 10))
        try mergeCase(
            &c,
            "merge_one_sided_edit",
            [("merge_one_sided_edit_a.vault", oneSided), base],
            key: key,
            "replica a edited db/alice in place; merged with the replica it was made from, in either order, the "
                + "edit is taken silently: its history holds the other's current event (R3-EV-2, R-MRG-18 step 2)"
        )

        var newer = try edit(base.bytes, 10, setX("x1", 10))
        newer = try edit(newer, 20, setX("x2", 20))
        newer = try edit(newer, 30) { try $0.remove(y.id, now: time(30), random: random) }
        newer = try edit(newer, 40) {
            try $0.put(
                draft(ItemID(random: random), service: "ci", account: "runner", secret: "w0", minutes: 40),
                random: random
            )
        }
        try mergeCase(
            &c,
            "merge_older_copy",
            [base, ("merge_older_copy_newer.vault", newer)],
            key: key,
            "an older copy of the vault (the base) and a copy four commits newer (db/alice rotated twice, "
                + "mail/bob deleted, ci/runner added): every state of the newer copy descends from the older's or "
                + "is new, so the merge equals the newer copy, with no conflict copy of a rotated-out secret"
        )

        try mergeCase(
            &c,
            "merge_concurrent_edits",
            [
                ("merge_concurrent_edits_a.vault", try edit(base.bytes, 10, setX("from a", 10))),
                ("merge_concurrent_edits_b.vault", try edit(base.bytes, 20, setX("from b", 20))),
            ],
            key: key,
            "both replicas edited db/alice on the base: concurrent. The later modificationDate (b's) keeps the "
                + "ID with its own event, its history taking in a's (R3-EV-3); a's version becomes one conflict copy "
                + "with a derived ID, account suffix, marker, and a derived event on top of a's history (R-MRG-7, R-MRG-8, R-MRG-18)"
        )
        try mergeCase(
            &c,
            "merge_edit_deletion_concurrent",
            [
                ("merge_edit_deletion_concurrent_a.vault", try edit(base.bytes, 20, setX("edited", 20))),
                ("merge_edit_deletion_concurrent_b.vault", try edit(base.bytes, 10, removeX(10))),
            ],
            key: key,
            "a edited db/alice, b deleted it, both on the base: concurrent, listed. The edit is newer than the "
                + "deletion, so it stays, its history taking in the deletion's, and the deletion is kept under the shadow ID "
                + "(R-MRG-7, R-MRG-9, R-MRG-18 step 4)"
        )
        try mergeCase(
            &c,
            "merge_deletion_newer_than_edit",
            [
                ("merge_deletion_newer_than_edit_a.vault", try edit(base.bytes, 10, setX("edited", 10))),
                ("merge_deletion_newer_than_edit_b.vault", try edit(base.bytes, 20, removeX(20))),
            ],
            key: key,
            "a edited db/alice, b deleted it later, both on the base: concurrent, listed; the deletion wins and "
                + "its entry's history takes in the edit's (R-MRG-7, R-MRG-18 step 4)"
        )
        let edited = try edit(base.bytes, 20, setX("x1", 20))
        try mergeCase(
            &c,
            "merge_deletion_after_edit",
            [
                ("merge_deletion_after_edit_a.vault", edited),
                ("merge_deletion_after_edit_b.vault", try edit(edited, 10, removeX(10))),
            ],
            key: key,
            "b deleted db/alice on top of a's edit, with a clock 10 minutes behind: the deletion descends from "
                + "the edit and is taken silently, whatever the times say (R-MRG-18 step 2)"
        )
        let deleted = try edit(base.bytes, 10, removeX(10))
        try mergeCase(
            &c,
            "merge_deletion_readded",
            [
                ("merge_deletion_readded_a.vault", try edit(deleted, 20, setX("x again", 20))),
                ("merge_deletion_readded_deleted.vault", deleted),
            ],
            key: key,
            "a wrote db/alice again under its ID after deleting it: its history descends from the deletion's "
                + "(R-DEL-3), so the item is live after the merge; the deletion's time is kept under the shadow ID "
                + "(R-MRG-9)"
        )

        let a = try edit(base.bytes, 10, setX("from a", 10))
        let b = try edit(base.bytes, 16) { writer in
            try writer.put(
                draft(y.id, service: "mail", account: "bob", secret: "y1", minutes: 15, created: 0),
                random: random
            )
            try writer.remove(z.id, now: time(16), random: random)
        }
        var cee = try edit(base.bytes, 20, setX("from c", 20))
        cee = try edit(cee, 26) { writer in
            try writer.put(
                draft(z.id, service: "wifi", account: "home", secret: "z-c", .always, minutes: 25, created: 0),
                random: random
            )
            try writer.put(
                draft(ItemID(random: random), service: "ci", account: "runner", secret: "w-c", minutes: 26),
                random: random
            )
        }
        try mergeCase(
            &c,
            "merge_three_replicas",
            [
                ("merge_three_replicas_a.vault", a), ("merge_three_replicas_b.vault", b),
                ("merge_three_replicas_c.vault", cee),
            ],
            orders: [[0, 1, 2], [2, 1, 0], [1, 2, 0]],
            key: key,
            "three replicas of the base: a and c edited db/alice (concurrent, c later: one conflict copy of a's), "
                + "b edited mail/bob and deleted wifi/home, which c edited later (concurrent: the edit stays, the "
                + "deletion time under the shadow ID), c added ci/runner. Every order gives the same items and "
                + "histories (Spec/merge.md §7)"
        )

        // A 1.1 copy and a format-3 copy migrated from it.
        let old = try FixtureMaker(seed: "merge mixed", slots: [.password(password)], minor: 1, seedPrefix: seedPrefix)
        let mixedX = try old.add(service: "db", account: "alice", secret: "x0")
        let mixedY = try old.add(service: "mail", account: "bob", secret: "y0")
        let v11 = try old.bytes(minutes: 1)
        let oldKey = BLAKE2b.deriveKey(from: old.master.secret, id: 1, context: "VLTmerge")
        let v11Later = try edit(v11, 10) {
            try $0.put(
                draft(ItemID(random: random), service: "ci", account: "runner", secret: "from 1.1", minutes: 10),
                random: random
            )
        }
        var v3 = try edit(v11, 20) { _ = try $0.upgradeToVersion3() }
        v3 = try edit(v3, 30) { writer in
            try writer.put(
                draft(mixedX.id, service: "db", account: "alice", secret: "x1", minutes: 30, created: 0),
                random: random
            )
            try writer.remove(mixedY.id, now: time(30), random: random)
        }
        try mergeCase(
            &c,
            "merge_mixed_v11_v3",
            [("merge_mixed_v11.vault", v11Later), ("merge_mixed_v3.vault", v3)],
            key: oldKey,
            "a format 1.1 copy (an item added since the fork, generation 2) and a copy migrated to format 3 and "
                + "then edited (db/alice rotated, mail/bob deleted): the 1.1 entries read as migrated, one event "
                + "LE64(version) each, of which the format-3 states descend; the result is format 3 (R-MRG-14, "
                + "R-MRG-18)"
        )
    }

    /// Adds a merge case: its replica files, and the items and deletion entries that merging them
    /// in every order of `orders` gives (``MergeModel``).
    static func mergeCase(
        _ c: inout FixtureCatalog.Builder,
        _ name: String,
        _ replicas: [(name: String, bytes: [UInt8])],
        orders: [[Int]]? = nil,
        key: SecretBytes,
        _ comment: String
    ) throws {
        for replica in replicas where c.files[replica.name] == nil { _ = c.file(replica.name, replica.bytes) }
        let models = try replicas.map { try MergeModel($0.bytes, mergeKey: key) }
        let orders = orders ?? [[0, 1], [1, 0]]
        var results: [MergeModel] = []
        for order in orders {
            var result = models[order[0]]
            for next in order.dropFirst() { result = MergeModel.merge(result, models[next]) }
            results.append(result)
        }
        var items: [FixtureItem] = []
        var deletions: [FixtureDeletion] = []
        for (id, state) in results[0].states.sorted(by: { $0.key < $1.key }) {
            let relations = models.map { MergeModel.relation(of: state.history, to: $0.states[id]) }
            let history = state.history.map { Hex.encode($0) }
            switch state {
            case .live(let version):
                var item = version.item
                item.history = history
                item.relations = relations
                item.conflictCopyOf = version.copyOf?.description
                items.append(item)
            case .deleted(let deletedAt, _):
                deletions.append(
                    FixtureDeletion(id: id.description, deletedAt: deletedAt, history: history, relations: relations)
                )
            }
        }
        for other in results.dropFirst() {
            precondition(
                other.states.keys.sorted() == results[0].states.keys.sorted()
                    && other.states.allSatisfy { results[0].states[$0.key]!.history == $0.value.history },
                "\(name): the orders give different results"
            )
        }
        var entry = FixtureCase(
            name: name,
            file: replicas[0].name,
            expect: "merge",
            error: nil,
            credentials: .init(password: password),
            items: items,
            itemsFile: nil,
            unavailable: nil,
            readOnly: nil,
            weakKDF: nil,
            comment: comment
        )
        entry.deletions = deletions
        entry.replicas = replicas.map(\.name)
        entry.orders = orders
        if replicas.count == 2 {
            entry.conflicts = results[0].conflicts.sorted { $0.0 < $1.0 }.map {
                FixtureConflict(id: $0.0.description, kind: $0.1)
            }
        }
        c.cases.append(entry)
    }
}
