// vault: the format-3 fixtures that must not open, one defect each (Spec/format-v3.md §17).

import VaultFormat

extension FixtureCatalogV3 {
    /// The vault every defect is made in: a password keyslot and a base-scope device keyslot,
    /// three master-scope items and two base-scope items, written whole (`single`, generation 1),
    /// then a second generation committed in place that rotates the `api` secret (`two`).
    struct DamageBase {
        let single: [UInt8]
        let two: [UInt8]
        /// The keys of a holder of `MK`; ``Format3Keys/baseHolder`` for a holder of `BK` alone.
        let keys: Format3Keys
        let device: (secret: DeviceSecret, hex: String)
        let itemsOne: [FixtureItem]
        let itemsTwo: [FixtureItem]
        /// The item the second generation rotates.
        let rotated: ItemID
    }

    static func damageBase() throws -> DamageBase {
        let device = deviceSecret("damage")
        let m = try maker("damage", slots: [.password(password), .device(device.secret, scope: .baseKey)])
        let api = try m.add(service: "api", account: "deploy", secret: "token-1")
        try m.add(service: "db", account: "admin", secret: "db-1")
        try m.add(service: "git", account: "ci", secret: "git-1")
        try m.add(
            .genericPassword,
            .always,
            attributes: .init(service: "wifi", account: "home"),
            secret: Array("wifi-1".utf8)
        )
        try m.add(
            .genericPassword,
            .always,
            attributes: .init(service: "alarm", account: "code"),
            secret: Array("4711".utf8)
        )
        let single = try m.bytes(minutes: 10)
        let itemsOne = m.items
        try m.reopen(single, with: .password(password))
        try m.update(draft(api.id, service: "api", account: "deploy", secret: "token-2", minutes: 20, created: 0))
        let two = try m.committed(on: single, minutes: 20)
        return DamageBase(
            single: single,
            two: two,
            keys: Format3Keys(master: m.master, vaultID: m.vaultID),
            device: device,
            itemsOne: itemsOne,
            itemsTwo: m.items,
            rotated: api.id
        )
    }

    /// The random source of one fixture's edit (nonces of the chunks it seals).
    static func editRandom(_ name: String) -> SeededRandom { SeededRandom(seed: seedPrefix + "edit " + name) }

    static func negative(_ c: inout FixtureCatalog.Builder) throws {
        let base = try damageBase()
        try c.successV3(
            "damage_base",
            file: c.file("damage_base.vault", base.single),
            items: base.itemsOne,
            "the vault the defects below are made in: a password and a base-scope device keyslot, three "
                + "whenUnlocked and two always items, written whole (generation 1)"
        )
        try c.successV3(
            "damage_two_commits",
            file: c.file("damage_two_commits.vault", base.two),
            items: base.itemsTwo,
            "damage_base with a second generation committed in place (slot 1): the api secret rotated; the "
                + "first record of api stays in the heap as waste"
        )
        slots(&c, base)
        headerChunk(&c, base)
        try roots(&c, base)
        nodes(&c, base)
        histories(&c, base)
        try chunks(&c, base)
    }

    // MARK: - Slots (no key)

    static func slots(_ c: inout FixtureCatalog.Builder, _ base: DamageBase) {
        c.failure(
            "slot_checksum_mismatch",
            file: c.file("slot_checksum_mismatch.vault", Surgery.flip(base.single, at: 16)),
            .headerCorrupt,
            writer: "no key",
            "damage_base with a bit of slot 0's generation flipped: its checksum fails, slot 1 is empty, so no "
                + "slot is complete (R3-SLT-2, R3-SLT-4)"
        )
        c.failure(
            "slot_index_wrong",
            file: c.file("slot_index_wrong.vault", Format3Image.editingSlot(base.single, at: 0) { $0.index = 1 }),
            .headerCorrupt,
            writer: "no key",
            "slot 0 says it is slot 1 (checksum recomputed): a slot copied to the other position is damaged "
                + "there (R3-SLT-2)"
        )
        c.failure(
            "slot_reserved_nonzero",
            file: c.file(
                "slot_reserved_nonzero.vault",
                Format3Image.editingSlot(base.single, at: 0) { $0.reserved[100] = 0x01 }
            ),
            .headerCorrupt,
            writer: "no key",
            "a reserved byte of slot 0 (minor 0) set, checksum recomputed: the slot is damaged (R3-SLT-2)"
        )
        c.failure(
            "slot_length_not_512",
            file: c.file(
                "slot_length_not_512.vault",
                Format3Image.editingSlot(base.single, at: 0) { $0.slotLength = 1024 }
            ),
            .unsupportedVersion,
            writer: "no key",
            "major 3 with a slotLength of 1024 (checksum recomputed): a layout this document does not define, "
                + "not a damaged format-3 file (R3-SLT-1 step 1)"
        )
        c.failure(
            "file_cut_in_slots",
            file: c.file("file_cut_in_slots.vault", Array(base.single.prefix(700))),
            .truncated,
            writer: "no key",
            "damage_base cut to 700 bytes, inside slot 1: a format-3 file shorter than 1024 bytes (R3-SLT-1)"
        )
        c.failure(
            "file_cut_in_commit",
            file: c.file("file_cut_in_commit.vault", Array(base.single.dropLast())),
            .truncated,
            writer: "no key",
            "damage_base without its last byte: its only slot is well-formed and its committedLength runs past "
                + "the end of the file (R3-SLT-4)"
        )
        var magicless = base.two
        for start in [0, 512] { magicless.replaceSubrange(start..<start + 8, with: repeatElement(0, count: 8)) }
        c.failure(
            "slot_bad_magic_both",
            file: c.file("slot_bad_magic_both.vault", magicless),
            .notAVault,
            writer: "no key",
            "damage_two_commits with the magic of both slots zeroed: neither slot is marked, and the first "
                + "bytes are not the magic (R3-SLT-1 step 3)"
        )
        c.failure(
            "slot_mac_mismatch",
            file: c.file(
                "slot_mac_mismatch.vault",
                Format3Image.editingSlot(base.two, at: 1) { $0.generation = 7 }
            ),
            .headerAuthentication,
            writer: "no key",
            "damage_two_commits with slot 1's generation set to 7 and its checksum recomputed: the MAC fails "
                + "once HK is known, and the reader does not fall back to slot 0 (R3-SLT-5)"
        )
        c.failure(
            "slot_generations_equal",
            file: c.file(
                "slot_generations_equal.vault",
                Format3Image.editingSlot(base.two, at: 1, macKey: base.keys.header) { $0.generation = 1 }
            ),
            .structure,
            writer: "base key",
            "damage_two_commits with slot 1's generation set to 1, checksum and MAC recomputed: two complete "
                + "slots of one generation (R3-SLT-4)"
        )
    }

    // MARK: - The header chunk (no key)

    static func headerChunk(_ c: inout FixtureCatalog.Builder, _ base: DamageBase) {
        let headerStart = Int(RawSlot(base.single[0..<512]).header.offset)
        c.failure(
            "header_hash_mismatch",
            file: c.file("header_hash_mismatch.vault", Surgery.flip(base.single, at: headerStart + 6 + 5)),
            .headerCorrupt,
            writer: "no key",
            "a bit of the vault ID in damage_base's header chunk flipped: the chunk does not match the hash "
                + "its reference gives (R3-FILE-1)"
        )
        func edited(_ name: String, _ change: ([(type: UInt16, value: [UInt8])]) -> [(type: UInt16, value: [UInt8])])
            -> String
        {
            var image = Format3Image(base.single, keys: base.keys, random: editRandom(name))
            image.headerChunk = Format3Image.chunk(of: change(Format3Image.fields(of: image.headerChunk)))
            return c.file(name + ".vault", image.commit(place: .same, mac: false, keepRoot: true))
        }
        c.failure(
            "header_unknown_critical",
            file: edited("header_unknown_critical") { $0 + [(0x8123, Array("from v4".utf8))] },
            .unsupportedFeature,
            writer: "no key",
            "an unknown critical field 0x8123 appended to the header chunk, which is appended anew with the "
                + "slot's reference, commit range and checksum recomputed (R-FLD-2)"
        )
        let filler = editRandom("stanza filler")
        c.failure(
            "header_stanzas_33",
            file: edited("header_stanzas_33") { fields in
                fields + (0..<33).map { _ in (UInt16(0x0001), [1, 0] + filler.bytes(241)) }
            },
            .limit,
            writer: "no key",
            "33 recipient stanza fields: the 33rd is limit, counted before its value is read (R-FLD-6)"
        )
        c.failure(
            "header_groups_33",
            file: edited("header_groups_33") { fields in
                fields + (1...33).map { domain in (UInt16(0x8006), [UInt8(domain)] + filler.bytes(105)) }
            },
            .limit,
            writer: "no key",
            "33 access-group fields, domains 1 to 33: the 33rd is limit, counted before its value is read "
                + "(R-FLD-6, R2-GRP-1)"
        )
        let rootStart = Int(RawSlot(base.single[0..<512]).root.offset)
        c.failure(
            "root_hash_mismatch",
            file: c.file("root_hash_mismatch.vault", Surgery.flip(base.single, at: rootStart + 40)),
            .indexCorrupt,
            writer: "no key",
            "a bit of damage_base's root flipped (a file written whole hashes no commit range): the root does "
                + "not match its reference's hash (R3-FILE-1)"
        )
    }

    // MARK: - The root and the scope tags (base key)

    static func roots(_ c: inout FixtureCatalog.Builder, _ base: DamageBase) throws {
        func edited(_ name: String, _ change: (inout Format3Image) -> [UInt8]) -> String {
            var image = Format3Image(base.two, keys: base.keys.baseHolder, random: editRandom(name))
            return c.file(name + ".vault", change(&image))
        }
        c.failure(
            "root_does_not_open",
            file: edited("root_does_not_open") { $0.commit(damageRoot: true) },
            .indexCorrupt,
            writer: "base key",
            "a third commit whose root, sealed under IK, has a bit flipped after sealing; its reference, the "
                + "commit hash and the MAC are right: Open fails (R3-ROOT-1)"
        )
        c.failure(
            "root_scopes_out_of_order",
            file: edited("root_scopes_out_of_order") { image in
                image.root.scopes.swapAt(0, 1)
                return image.commit()
            },
            .indexCorrupt,
            writer: "base key",
            "a root whose scopes are base, then master: the list must be exactly (0, 0), (1, 0), then the "
                + "groups (R3-ROOT-1)"
        )
        c.failure(
            "root_counter_zero",
            file: edited("root_counter_zero") { image in
                image.root.scopes[1].counter = 0
                return image.commit(retag: [.base])
            },
            .indexCorrupt,
            writer: "base key",
            "the base scope's counter is 0, its tag recomputed (R3-ROOT-1)"
        )
        c.failure(
            "root_bytes_after_scopes",
            file: edited("root_bytes_after_scopes") { image in
                image.root.trailing = [0]
                return image.commit()
            },
            .indexCorrupt,
            writer: "base key",
            "one byte after the last scope entry of the root (R3-ROOT-1)"
        )
        c.failure(
            "root_count_over_limit",
            file: edited("root_count_over_limit") { image in
                image.root.scopes[1].liveCount = 1_000_001
                return image.commit(retag: [.base])
            },
            .limit,
            writer: "base key",
            "the base scope's liveCount is 1,000,001, its tag recomputed: over the 1,000,000 live entries a "
                + "vault holds (R3-ROOT-1)"
        )
        c.failure(
            "root_live_bytes_wrong",
            file: edited("root_live_bytes_wrong") { image in image.commit(liveBytes: image.liveBytes + 32) },
            .indexCorrupt,
            writer: "base key",
            "a third commit whose root's liveBytes is 32 more than the chunks it reaches: found at full "
                + "verification (R3-FILE-2)"
        )

        // Issue 21's attack: a holder of BK puts back the api record of generation 1.
        let old = Format3Image(base.single, keys: base.keys.baseHolder, random: editRandom("unused"))
        let oldEntry = old.entries(.master).first { $0.key.itemID == base.rotated }!
        let rolledBack = edited("scope_master_rolled_back") { image in
            let entries = image.entries(.master).map { $0.key.itemID == base.rotated ? oldEntry : $0 }
            image.replaceTree(.master, leaves: [entries])
            return image.commit()
        }
        c.failure(
            "scope_master_rolled_back_password",
            file: rolledBack,
            .indexCorrupt,
            writer: "base key",
            "a holder of BK alone commits a master-scope tree whose api entry is generation 1's, pointing at the "
                + "old record still in the heap: it cannot compute the master scope's tag (R3-SCP-1, §7.3)"
        )
        try c.successV3(
            "scope_master_rolled_back_device",
            file: rolledBack,
            credentials: .init(deviceSecret: base.device.hex),
            opening: Credentials(deviceSecret: base.device.secret),
            items: base.itemsTwo.filter { $0.protectionClass == "always" },
            unavailable: 3,
            writer: "base key",
            "the same file with the base-scope device keyslot: a base holder checks only the base scope's tag "
                + "and cannot tell (R3-SCP-1, §7.3)"
        )
    }

    // MARK: - Tree nodes (master key)

    static func nodes(_ c: inout FixtureCatalog.Builder, _ base: DamageBase) {
        func edited(_ name: String, _ build: (inout Format3Image, [TreeEntry]) -> (ChunkReference, [ChunkReference]))
            -> String
        {
            var image = Format3Image(base.two, keys: base.keys, random: editRandom(name))
            let entries = image.entries(.master)
            let (top, nodes) = build(&image, entries)
            image.setTree(.master, top: top, nodes: nodes, entries: entries)
            return c.file(name + ".vault", image.commit(retag: [.master]))
        }
        func leaf(_ entries: [TreeEntry]) -> [UInt8] { TreeNode.leaf(entries).encoded() }
        func interior(_ level: UInt8, _ children: [(TreeKey, ChunkReference)]) -> [UInt8] {
            TreeNode.interior(level: level, children: children.map { (firstKey: $0.0, child: $0.1) }).encoded()
        }
        let cases: [(String, String, (inout Format3Image, [TreeEntry]) -> (ChunkReference, [ChunkReference]))] = [
            (
                "node_level_skipped",
                "an interior node of level 2 over two leaves: a child's level must be its parent's minus one "
                    + "(R3-TREE-2)",
                { image, e in
                    let low = image.appendNode(leaf([e[0]]), scope: .master)
                    let high = image.appendNode(leaf([e[1], e[2]]), scope: .master)
                    let top = image.appendNode(interior(2, [(e[0].key, low), (e[1].key, high)]), scope: .master)
                    return (top, [top, low, high])
                }
            ),
            (
                "node_level_6",
                "the master scope's top leaf says level 6: above 5 (R3-TREE-2)",
                { image, e in
                    var bytes = leaf(e)
                    bytes[0] = 6
                    let top = image.appendNode(bytes, scope: .master)
                    return (top, [top])
                }
            ),
            (
                "node_empty_child",
                "an interior node whose second child is a leaf with count 0: only a top leaf may be empty "
                    + "(R3-TREE-2)",
                { image, e in
                    let full = image.appendNode(leaf(e), scope: .master)
                    let empty = image.appendNode(leaf([]), scope: .master)
                    let after = TreeKey(tag: .max, itemID: ItemID(bytes: [UInt8](repeating: 0xFF, count: 16)))
                    let top = image.appendNode(interior(1, [(e[0].key, full), (after, empty)]), scope: .master)
                    return (top, [top, full, empty])
                }
            ),
            (
                "node_count_past_end",
                "a leaf whose count says 4 over 3 entries: the plaintext ends inside an entry (R3-TREE-1)",
                { image, e in
                    var bytes = leaf(e)
                    bytes[1] = 4
                    let top = image.appendNode(bytes, scope: .master)
                    return (top, [top])
                }
            ),
            (
                "node_bytes_after_entries",
                "a leaf with one byte after its last entry (R3-TREE-1)",
                { image, e in
                    let top = image.appendNode(leaf(e) + [0], scope: .master)
                    return (top, [top])
                }
            ),
            (
                "node_keys_descending",
                "a leaf whose first two entries are swapped: keys must be strictly ascending (R3-TREE-3)",
                { image, e in
                    let bytes = [0] + LE.bytes(3, size: 2) + e[1].encoded + e[0].encoded + e[2].encoded
                    let top = image.appendNode(bytes, scope: .master)
                    return (top, [top])
                }
            ),
            (
                "node_first_key_mismatch",
                "an interior node that gives its second leaf the key of that leaf's second entry: a child's first "
                    + "key must equal its parent's firstKey for it (R3-TREE-3)",
                { image, e in
                    let low = image.appendNode(leaf([e[0]]), scope: .master)
                    let high = image.appendNode(leaf([e[1], e[2]]), scope: .master)
                    let top = image.appendNode(interior(1, [(e[0].key, low), (e[2].key, high)]), scope: .master)
                    return (top, [top, low, high])
                }
            ),
            (
                "node_keys_across_siblings",
                "two leaves, each ascending and each starting with its parent's key for it, whose keys overlap: "
                    + "the first leaf's last key is above the second's first; found reading the whole tree "
                    + "(R3-TREE-3)",
                { image, e in
                    let low = image.appendNode(leaf([e[0], e[2]]), scope: .master)
                    let high = image.appendNode(leaf([e[1]]), scope: .master)
                    let top = image.appendNode(interior(1, [(e[0].key, low), (e[1].key, high)]), scope: .master)
                    return (top, [top, low, high])
                }
            ),
        ]
        for (name, comment, build) in cases {
            c.failure(name, file: edited(name, build), .indexCorrupt, writer: "master key", comment)
        }
    }

    // MARK: - Entries and histories (master key)

    static func histories(_ c: inout FixtureCatalog.Builder, _ base: DamageBase) {
        let random = editRandom("history events")
        let extra = (0..<16).map { _ in random.bytes(8) }
        let cases: [(String, String, ([UInt8]) -> [UInt8])] = [
            ("history_count_zero", "a live entry whose history has n = 0 (R3-EV-4)", { _ in [0] }),
            (
                "history_count_17",
                "a live entry whose history has 17 distinct events (R3-EV-4)",
                { current in [17] + current + extra.joined() }
            ),
            (
                "history_event_zero",
                "a live entry whose history's second event is all zero (R3-EV-4)",
                { current in [2] + current + [UInt8](repeating: 0, count: 8) }
            ),
            (
                "history_event_repeated",
                "a live entry whose history names one ancestor twice (R3-EV-4)",
                { current in [3] + current + extra[0] + extra[0] }
            ),
        ]
        for (name, comment, history) in cases {
            var image = Format3Image(base.two, keys: base.keys, random: editRandom(name))
            let entries = image.entries(.master)
            let first = entries[0].encoded
            let current = Array(first[41..<49])
            let bytes =
                [0] + LE.bytes(3, size: 2) + first.prefix(40) + history(current) + entries[1].encoded
                + entries[2].encoded
            let top = image.appendNode(bytes, scope: .master)
            image.setTree(.master, top: top, nodes: [top], entries: entries)
            c.failure(
                name,
                file: c.file(name + ".vault", image.commit(retag: [.master])),
                .indexCorrupt,
                writer: "master key",
                comment
            )
        }

        var image = Format3Image(base.two, keys: base.keys, random: editRandom("entry_wrong_scope"))
        let wifi = image.entries(.base).first!
        let master = (image.entries(.master) + [wifi]).sorted { $0.key < $1.key }
        image.replaceTree(.master, leaves: [master])
        image.replaceTree(.base, leaves: [image.entries(.base).filter { $0.key != wifi.key }])
        c.failure(
            "entry_wrong_scope",
            file: c.file("entry_wrong_scope.vault", image.commit(retag: [.master, .base])),
            .indexCorrupt,
            writer: "master key",
            "an always item's live entry moved into the master scope's tree, both tags recomputed: its class "
                + "belongs to the base scope (R3-ENT-1)"
        )
    }

    // MARK: - Records and chunks (base key)

    static func chunks(_ c: inout FixtureCatalog.Builder, _ base: DamageBase) throws {
        func edited(_ name: String, _ change: (inout Format3Image, [TreeEntry]) -> [TreeEntry]) -> String {
            var image = Format3Image(base.two, keys: base.keys.baseHolder, random: editRandom(name))
            let entries = change(&image, image.entries(.base))
            image.replaceTree(.base, leaves: [entries.sorted { $0.key < $1.key }])
            return c.file(name + ".vault", image.commit(retag: [.base]))
        }
        c.failure(
            "record_outside_heap",
            file: edited("record_outside_heap") { _, entries in
                entries.map { entry in
                    guard case .live(var live) = entry, entry == entries[0] else { return entry }
                    live.recordOffset = 1 << 40
                    return .live(live)
                }
            },
            .structure,
            writer: "base key",
            "a base-scope entry whose record offset is 2^40, past the committed heap (R3-ENT-3, R3-FILE-1)"
        )
        c.failure(
            "chunks_overlap",
            file: edited("chunks_overlap") { image, entries in
                // The first always record, copied into an unknown non-critical field of a new header
                // chunk; its entry points there. The record opens; the two chunks overlap.
                guard case .live(var live) = entries[0] else { fatalError("a live entry") }
                let record = image.bytes(live.recordOffset, Format3Image.recordLength(live))
                let fields = Format3Image.fields(of: image.headerChunk)
                image.headerChunk = Format3Image.chunk(of: fields + [(0x0155, record)])
                let header = image.appendHeader()
                live.recordOffset = header.offset + UInt64(image.headerChunk.count - record.count)
                return [.live(live)] + entries.dropFirst()
            },
            .structure,
            writer: "base key",
            "a base-scope record that lies inside the header chunk, in the value of an unknown non-critical "
                + "field: it opens, the hashes and tags hold, liveBytes is the sum of the lengths, and the chunks "
                + "overlap (R3-FILE-2)"
        )
        let api = Format3Image(base.two, keys: base.keys.baseHolder, random: editRandom("unused")).entries(.master)
            .first { $0.key.itemID == base.rotated }!
        c.failure(
            "entry_id_twice",
            file: edited("entry_id_twice") { _, entries in
                let event = EventID(bytes: editRandom("entry_id_twice event").bytes(8))!
                return entries + [.deleted(key: api.key, deletedAt: time(25), history: EventHistory(first: event))]
            },
            .indexCorrupt,
            writer: "base key",
            "a holder of BK adds to the base scope a deletion entry with the ID of a live master-scope item: an "
                + "item ID is in at most one entry of the vault, found at full verification (R3-ENT-2)"
        )
    }
}
