// vault: the format-3 fixtures that open: classes, keyslots, recipients, commits, deletions,
// migrations and the slot notes of R3-SLT-4.

import VaultFormat

extension FixtureCatalogV3 {
    static func positive(_ c: inout FixtureCatalog.Builder) throws {
        try minimal(&c)
        try classes(&c)
        try commits(&c)
        try keyslots(&c)
        try groups(&c)
        try deletions(&c)
        try migrated(&c)
        try treeLevels(&c)
        try headerAndSlots(&c)
    }

    static func minimal(_ c: inout FixtureCatalog.Builder) throws {
        let m = try maker("minimal")
        let file = c.file("v3_minimal.vault", try m.bytes(minutes: 1))
        try c.successV3(
            "v3_minimal",
            file: file,
            items: [],
            "a vault with one password keyslot and no item: slot 0 holds generation 1, slot 1 is empty, and the "
                + "heap holds the header chunk, one empty leaf per scope and the root (§9.2)"
        )
        c.failure(
            "credential_wrong_password",
            file: file,
            credentials: .init(password: "correct horse battery stable"),
            .wrongCredential,
            "the right file with a wrong password: every keyslot is tried (R-KS-3)"
        )
        c.failure(
            "credential_none_offered",
            file: file,
            credentials: .init(),
            .wrongCredential,
            "no credential at all opens nothing (R-KS-3)"
        )
    }

    /// Both item classes in every protection class, device-bound ones under this machine's tagged IDs.
    static func classes(_ c: inout FixtureCatalog.Builder) throws {
        let laptop = deviceSecret("laptop")
        let phone = deviceSecret("phone")
        let m = try maker("classes", device: laptop.secret)
        for itemClass in [ItemClass.genericPassword, .internetPassword] {
            for protection in ProtectionClass.allCases {
                var attributes = ItemAttributes(service: "classes", account: "\(itemClass) \(protection)")
                if itemClass == .internetPassword {
                    attributes.service = ""
                    attributes.server = "example.com"
                    attributes.protocol = "https"
                    attributes.port = 443
                    attributes.path = "/login"
                    attributes.label = "example.com (\(protection))"
                }
                try m.add(
                    itemClass,
                    protection,
                    attributes: attributes,
                    secret: Array("secret of \(itemClass) \(protection)".utf8),
                    minutes: 1
                )
            }
        }
        let file = c.file("v3_classes.vault", try m.bytes(minutes: 2))
        let portable = m.items.filter { !ProtectionClass(name: $0.protectionClass)!.isDeviceBound }
        let own = Credentials(password: SecretBytes(utf8: password), deviceSecret: laptop.secret)
        try c.successV3(
            "v3_classes",
            file: file,
            credentials: .init(password: password, deviceSecret: laptop.hex),
            opening: own,
            items: m.items,
            "a generic and an internet password in each of the seven protection classes, read on their own "
                + "device; the eight ThisDeviceOnly items have device-tagged IDs (R11-DEV-1) and markers (§12.3)"
        )
        try c.successV3(
            "v3_classes_other_device",
            file: file,
            credentials: .init(password: password, deviceSecret: phone.hex),
            items: portable,
            unavailable: m.items.count - portable.count,
            "the same file on another device: the eight ThisDeviceOnly items read as foreignDevice (R11-DEV-2)"
        )
        try c.successV3(
            "v3_classes_no_device",
            file: file,
            items: portable,
            unavailable: m.items.count - portable.count,
            "the same file without a device secret: the ThisDeviceOnly items read as foreignDevice (R11-DEV-2)"
        )
    }

    /// Several in-place commits; then a commit that did not complete, three ways.
    static func commits(_ c: inout FixtureCatalog.Builder) throws {
        let m = try maker("commits")
        let api = try m.add(service: "api.example.com", account: "deploy", secret: "token-1")
        let db = try m.add(service: "db.example.com", account: "admin", secret: "pw-1")
        let wifi = try m.add(
            .genericPassword,
            .always,
            attributes: .init(service: "wifi", account: "home"),
            secret: Array("open sesame".utf8)
        )
        var file = try m.bytes(minutes: 10)
        let credentials = Credentials.password(password)
        try m.reopen(file, with: credentials)
        try m.update(
            draft(api.id, service: "api.example.com", account: "deploy", secret: "token-2", minutes: 20, created: 0)
        )
        file = try m.committed(on: file, minutes: 20)
        try m.reopen(file, with: credentials)
        try m.remove(db.id, at: time(30))
        file = try m.committed(on: file, minutes: 30)
        try m.reopen(file, with: credentials)
        try m.add(service: "ci.example.com", account: "runner", secret: "ci-1")
        file = try m.committed(on: file, minutes: 40)
        try m.reopen(file, with: credentials)
        try m.update(
            draft(api.id, service: "api.example.com", account: "deploy", secret: "token-3", minutes: 50, created: 0)
        )
        try m.update(
            draft(wifi.id, service: "wifi", account: "home", secret: "new sesame", .always, minutes: 50, created: 0)
        )
        file = try m.committed(on: file, minutes: 50)
        let name = c.file("v3_commits.vault", file)
        try c.successV3(
            "v3_commits",
            file: name,
            items: m.items,
            "generation 1 written whole, then four in-place commits (a rotation, a deletion, an addition, two "
                + "rotations): both slots hold a commit, slot 0 the fifth, and the heap holds the older records and "
                + "nodes as waste (§9.1, R3-FILE-2)"
        )

        // The next commit rotates the ci secret; it is cut off three ways.
        let committedItems = m.items
        try m.reopen(file, with: credentials)
        let ci = m.drafts.first { $0.attributes.service == "ci.example.com" }!
        try m.update(
            draft(ci.id, service: "ci.example.com", account: "runner", secret: "ci-2", minutes: 60, created: 40)
        )
        guard case .inPlace(let next) = try m.generation(minutes: 60) else { fatalError("a whole rewrite") }
        try c.successV3(
            "commit_uncommitted_tail",
            file: c.file("commit_uncommitted_tail.vault", file + next.appended),
            items: committedItems,
            "v3_commits with the chunks of a sixth commit appended and its slot never written: the tail is "
                + "ignored, generation 5 is read, and a full verification reports the tail's length (R3-SLT-6)"
        )
        let torn = next.applied(to: file)
        try c.successV3(
            "commit_torn_short",
            file: c.file("commit_torn_short.vault", Array(torn.dropLast(next.appended.count / 2))),
            items: committedItems,
            skippedCommit: true,
            "the sixth commit's slot reached the disk and half its appended bytes did not: the file ends before "
                + "its committedLength, so generation 5 is read with a note; the half commit is its uncommitted tail "
                + "(R3-SLT-3, R3-SLT-4, R3-SLT-6)"
        )
        var zeroed = torn
        zeroed.replaceSubrange(Int(next.offset)..<torn.count, with: repeatElement(0, count: next.appended.count))
        try c.successV3(
            "commit_torn_zeroed",
            file: c.file("commit_torn_zeroed.vault", zeroed),
            items: committedItems,
            skippedCommit: true,
            "the sixth commit's slot reached the disk, its appended bytes are zeros (not written back): its "
                + "commitHash fails, so generation 5 is read with a note, and the zeros are its uncommitted tail "
                + "(R3-SLT-3, R3-SLT-4, R3-SLT-6)"
        )
    }

    /// A key file slot, a password-and-key-file slot and a base-scope device slot; no password slot.
    static func keyslots(_ c: inout FixtureCatalog.Builder) throws {
        let first = keyFile("keyslots")
        let second = keyFile("keyslots_composite")
        let device = deviceSecret("keyslots")
        let m = try maker(
            "keyslots",
            slots: [
                .keyFile(first.bytes), .passwordAndKeyFile(password, second.bytes),
                .device(device.secret, scope: .baseKey),
            ],
            device: device.secret
        )
        let mail = try m.add(service: "mail", account: "me", secret: "mail secret")
        try m.add(
            .genericPassword,
            .always,
            attributes: .init(service: "wifi", account: "home"),
            secret: Array("wifi secret".utf8)
        )
        try m.add(
            .genericPassword,
            .alwaysThisDeviceOnly,
            attributes: .init(service: "vpn", account: "me"),
            secret: Array("vpn secret".utf8)
        )
        c.files[first.file] = first.bytes
        c.files[second.file] = second.bytes
        let file = c.file("v3_keyslots.vault", try m.bytes(minutes: 1))
        let vpn = m.items.first { $0.attributes.service == "vpn" }!
        let opening = Credentials(keyFile: SecretBytes(bytes: first.bytes))
        try c.successV3(
            "keyslot_keyfile",
            file: file,
            credentials: .init(keyFile: first.file),
            opening: opening,
            items: m.items.filter { $0.id != vpn.id },
            unavailable: 1,
            "the key file keyslot (kind 2, master scope) opens; without the device secret the "
                + "alwaysThisDeviceOnly item is foreignDevice (R-KS-3, R11-DEV-2)"
        )
        try c.successV3(
            "keyslot_password_and_keyfile",
            file: file,
            credentials: .init(password: password, keyFile: second.file, deviceSecret: device.hex),
            opening: opening,
            items: m.items,
            "the password and the second key file together open the kind 3 keyslot (R-KS-3)"
        )
        c.failure(
            "keyslot_password_only",
            file: file,
            credentials: .init(password: password),
            .wrongCredential,
            "the password alone opens no keyslot: the kind 3 slot needs the key file too (R-KS-3)"
        )
        c.failure(
            "keyslot_wrong_keyfile",
            file: file,
            credentials: .init(keyFile: second.file),
            .wrongCredential,
            "the composite slot's key file offered alone matches no kind 2 slot (R-KS-3)"
        )
        try c.successV3(
            "keyslot_device_base",
            file: file,
            credentials: .init(deviceSecret: device.hex),
            opening: opening,
            items: m.items.filter { $0.id != mail.id.description },
            unavailable: 1,
            "the device keyslot (kind 4) wraps BK: it reads the base scope (always, alwaysThisDeviceOnly) and "
                + "the whenUnlocked item is keyUnavailable (§2.3, R-REC-4)"
        )
    }

    /// Access groups with limited recipients, and a full recipient.
    static func groups(_ c: inout FixtureCatalog.Builder) throws {
        let alice = identity("alice")
        let runner = identity("runner")
        let accountant = identity("accountant")
        let mallory = identity("mallory")
        for person in [alice, runner, accountant, mallory] {
            c.files[person.file] = person.identity.fileContents.copyBytes()
        }
        let m = try maker("groups")
        var byGroup: [String: Set<String>] = [:]
        for (service, group, protection) in [
            ("db.example.com", "deploy", ProtectionClass.whenUnlocked), ("registry", "deploy", .always),
            ("bank", "billing", .whenUnlocked), ("invoices", "billing", .always), ("wiki", "", .always),
            ("mail", "", .whenUnlocked),
        ] {
            var attributes = ItemAttributes(service: service, account: "team")
            attributes.accessGroup = group
            let stored = try m.add(
                .genericPassword,
                protection,
                attributes: attributes,
                secret: Array("\(service) secret".utf8)
            )
            byGroup[group, default: []].insert(stored.id.description)
        }
        try m.addRecipient(alice.identity.recipient, name: "alice@laptop")
        try m.addRecipient(runner.identity.recipient, name: "ci-deploy", limitedTo: "deploy")
        try m.addRecipient(accountant.identity.recipient, name: "accounts", limitedTo: "billing")
        let file = c.file("v3_groups.vault", try m.bytes(minutes: 1))
        try c.successV3(
            "groups_password",
            file: file,
            items: m.items,
            "access groups deploy (domain 1) and billing (domain 2) with their scopes; the password keyslot "
                + "reads every scope (R2-KEY-1, §2.5)"
        )
        try c.successV3(
            "groups_alice",
            file: file,
            credentials: .init(identity: alice.file),
            items: m.items,
            "a full recipient's stanza wraps MK: alice reads every item (R12-RCP-3)"
        )
        for (person, group, name) in [
            (runner, "deploy", "groups_runner"), (accountant, "billing", "groups_accountant"),
        ] {
            let readable = m.items.filter { byGroup[group]!.contains($0.id) }
            try c.successV3(
                name,
                file: file,
                credentials: .init(identity: person.file),
                items: readable,
                unavailable: m.items.count - readable.count,
                "a stanza limited to \(group) wraps HK, IK, LK and GK(d): its holder reads its group's scope, "
                    + "every other item is keyUnavailable (R2-RCP-3)"
            )
        }
        c.failure(
            "groups_mallory",
            file: file,
            credentials: .init(identity: mallory.file),
            .wrongCredential,
            "an identity that is no recipient opens no stanza, and no keyslot takes an identity (R12-RCP-3)"
        )
    }

    /// Deletion entries in their items' scopes, an item written again after its deletion, and an
    /// item moved between scopes.
    static func deletions(_ c: inout FixtureCatalog.Builder) throws {
        let m = try maker("deletions")
        let api = try m.add(service: "api", account: "one", secret: "api secret")
        let wifi = try m.add(
            .genericPassword,
            .always,
            attributes: .init(service: "wifi", account: "home"),
            secret: Array("wifi".utf8)
        )
        let db = try m.add(service: "db", account: "two", secret: "db secret")
        let alarm = try m.add(service: "alarm", account: "code", secret: "1234")
        var file = try m.bytes(minutes: 10)
        let credentials = Credentials.password(password)
        try m.reopen(file, with: credentials)
        try m.remove(api.id, at: time(20))
        try m.remove(wifi.id, at: time(21))
        try m.remove(db.id, at: time(22))
        file = try m.committed(on: file, minutes: 22)
        try m.reopen(file, with: credentials)
        try m.update(draft(db.id, service: "db", account: "two", secret: "db secret again", minutes: 30, created: 0))
        try m.update(
            draft(alarm.id, service: "alarm", account: "code", secret: "1234", .always, minutes: 30, created: 0)
        )
        file = try m.committed(on: file, minutes: 30)
        try c.successV3(
            "v3_deletions",
            file: c.file("v3_deletions.vault", file),
            items: m.items,
            "deletion entries of a whenUnlocked and an always item, each in its item's scope under its tag "
                + "(R-DEL-1, R3-ENT-2); an item written again after its deletion, whose history descends from the "
                + "deletion (R-DEL-3); an item moved from the master to the base scope, its old entry removed"
        )
    }

    /// Files of format 1.1 and 2.0 migrated to 3 (§11).
    static func migrated(_ c: inout FixtureCatalog.Builder) throws {
        let device = deviceSecret("migrated")
        let credentials = Credentials(password: SecretBytes(utf8: password), deviceSecret: device.secret)
        let old = try FixtureMaker(
            seed: "migrated v1.1",
            slots: [.password(password)],
            deviceSecret: device.secret,
            minor: 1,
            seedPrefix: seedPrefix
        )
        let api = try old.add(service: "api", account: "one", secret: "api 1")
        try old.add(service: "token", account: "laptop", secret: "device token", .whenUnlockedThisDeviceOnly)
        let gone = try old.add(
            .genericPassword,
            .always,
            attributes: .init(service: "wifi", account: "home"),
            secret: Array("wifi".utf8)
        )
        var file = try old.bytes(minutes: 10)
        try old.reopen(file, with: credentials)
        try old.update(draft(api.id, service: "api", account: "one", secret: "api 2", minutes: 20, created: 0))
        try old.remove(gone.id, at: time(20))
        file = try old.bytes(minutes: 20)
        try old.reopen(file, with: credentials)
        try old.upgradeToVersion3()
        let migratedFile = c.file("v3_migrated_v11.vault", try old.bytes(minutes: 30))
        try c.successV3(
            "v3_migrated_v11",
            file: migratedFile,
            credentials: .init(password: password, deviceSecret: device.hex),
            opening: credentials,
            items: old.items,
            "a 1.1 file of generation 2 migrated to format 3 as generation 3: every record byte for byte, each "
                + "history the one event LE64(version), the deletion record a deletion entry at tag 0 in the "
                + "master scope with the event BLAKE2b(8, \"VLT3mdel\" || ID || LE64(deletedAt)) (R3-MIG-1)"
        )

        let runner = identity("migrated_runner")
        c.files[runner.file] = runner.identity.fileContents.copyBytes()
        let team = try FixtureMaker(seed: "migrated v2", slots: [.password(password)], minor: 2, seedPrefix: seedPrefix)
        var deploy = Set<String>()
        for (service, group) in [("db", "deploy"), ("registry", "deploy"), ("bank", "billing"), ("wiki", "")] {
            var attributes = ItemAttributes(service: service, account: "ci")
            attributes.accessGroup = group
            let stored = try team.add(
                .genericPassword,
                .whenUnlocked,
                attributes: attributes,
                secret: Array("\(service) key".utf8)
            )
            if group == "deploy" { deploy.insert(stored.id.description) }
        }
        try team.upgradeToVersion2()
        try team.addRecipient(runner.identity.recipient, name: "ci-deploy", limitedTo: "deploy")
        let v2 = try team.bytes(minutes: 10)
        try team.reopen(v2, with: .password(password))
        try team.upgradeToVersion3()
        let v3 = c.file("v3_migrated_v2.vault", try team.bytes(minutes: 20))
        try c.successV3(
            "v3_migrated_v2",
            file: v3,
            items: team.items,
            "a 2.0 file with the access group deploy (domain 1) migrated to format 3: deploy's records in the "
                + "scope (2, 1), the rest in the master scope, the limited stanza kept (R3-MIG-1)"
        )
        let readable = team.items.filter { deploy.contains($0.id) }
        try c.successV3(
            "v3_migrated_v2_runner",
            file: v3,
            credentials: .init(identity: runner.file),
            items: readable,
            unavailable: team.items.count - readable.count,
            "the same file with the runner's limited stanza, carried over by the migration (R2-RCP-3)"
        )
    }

    /// Enough items that the master scope's tree has leaves under an interior node.
    static func treeLevels(_ c: inout FixtureCatalog.Builder) throws {
        let m = try maker("tree")
        for number in 0..<300 {
            try m.add(service: "host-\(number).example.com", account: "user-\(number % 7)", secret: "secret \(number)")
        }
        try c.successV3(
            "v3_tree_levels",
            file: c.file("v3_tree_levels.vault", try m.bytes(minutes: 1)),
            items: m.items,
            "300 items: the master scope's tree is four leaves under one interior node of level 1, each node "
                + "kept under 4,096 bytes (§6.2, R3-TREE-4)"
        )
    }

    /// The header's unknown fields, an NFC password, and slots a reader reads past.
    static func headerAndSlots(_ c: inout FixtureCatalog.Builder) throws {
        var m = try maker("password nfc", slots: [.password(FixtureCatalogV11.composedPassword)])
        try m.add(service: "nfc", account: "user", secret: "normalized")
        let nfc = c.file("v3_password_nfc.vault", try m.bytes(minutes: 1))
        try c.successV3(
            "v3_password_nfc",
            file: nfc,
            credentials: .init(password: FixtureCatalogV11.decomposedPassword),
            opening: .password(FixtureCatalogV11.composedPassword),
            items: m.items,
            "the password typed decomposed (NFD) opens the keyslot made with its NFC form (R11-PW-1)"
        )

        m = try maker("unknown noncritical")
        try m.add(service: "kept", account: "user", secret: "kept")
        m.setUnknownFields([VaultHeader.UnknownField(type: 0x0123, value: Array("from v3.1".utf8))])
        try c.successV3(
            "header_unknown_noncritical",
            file: c.file("header_unknown_noncritical.vault", try m.bytes(minutes: 1)),
            items: m.items,
            "an unknown non-critical header field 0x0123 after the known ones: ignored, and kept by a writer "
                + "(R-FLD-3)"
        )

        let base = try damageBase()
        var future = Format3Image(base.two, keys: base.keys.baseHolder, random: editRandom("slot_minor_future"))
        try c.successV3(
            "slot_minor_future",
            file: c.file(
                "slot_minor_future.vault",
                future.commit { slot in
                    slot.minor = 1
                    slot.reserved[0] = 0x5A
                }
            ),
            items: base.itemsTwo,
            readOnly: true,
            writer: "base key",
            "damage_two_commits with a third commit, of minor 1, whose reserved slot bytes are not zero: a "
                + "later minor may use them, so the slot is well-formed; the file opens read-only (R3-SLT-2, R-HDR-3)"
        )
        var damaged = base.two
        damaged[512 + 16] ^= 0x01
        try c.successV3(
            "slot_current_damaged",
            file: c.file("slot_current_damaged.vault", damaged),
            items: base.itemsOne,
            skippedCommit: true,
            "a bit of damage_two_commits' current slot (slot 1, generation 2) flipped: its checksum fails, so the reader opens "
                + "generation 1 in slot 0 and notes the damaged slot; generation 2's bytes are the uncommitted tail "
                + "of generation 1 (R3-SLT-2, R3-SLT-4, R3-SLT-6)"
        )
        var magicless = base.two
        magicless.replaceSubrange(0..<8, with: repeatElement(0, count: 8))
        try c.successV3(
            "slot_first_magic_damaged",
            file: c.file("slot_first_magic_damaged.vault", magicless),
            items: base.itemsTwo,
            skippedCommit: true,
            "slot 0's magic bytes zeroed in damage_two_commits, whose slot 1 holds generation 2: slot 1 carries the magic, so "
                + "the file is format 3 and generation 2 is read, with a note for slot 0 (R3-SLT-1 step 2, R3-SLT-4)"
        )
    }
}
