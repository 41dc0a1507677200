// vault: fixtures that must open.

import VaultFormat

extension FixtureCatalog {
    static func positive(_ c: inout Builder) throws {
        // An empty vault.
        var m = try FixtureMaker(seed: "empty", slots: [.password(password)])
        try c.success("v1_empty", file: c.file("v1_empty.vault", m.bytes()), items: [], "a vault with no items")

        // One generic password.
        m = try FixtureMaker(seed: "generic_one", slots: [.password(password)])
        try m.add(service: "com.example.api", account: "deploy-bot", secret: "s3cr3t-token-0001")
        let genericOne = c.file("v1_generic_one.vault", try m.bytes())
        try c.success("v1_generic_one", file: genericOne, items: m.items, "one generic password, whenUnlocked")
        c.failure(
            "credential_wrong_password",
            file: genericOne,
            credentials: .init(password: "Correct horse battery staple"),
            .wrongCredential,
            "the right file with a wrong password: every keyslot is tried (R-KS-3)"
        )
        c.failure(
            "credential_none_offered",
            file: genericOne,
            credentials: .init(),
            .wrongCredential,
            "no credential at all opens nothing"
        )

        // One internet password with every attribute set.
        m = try FixtureMaker(seed: "internet_full", slots: [.password(password)])
        var full = ItemAttributes(service: "", account: "alice@example.com")
        full.accessGroup = "group.com.example.shared"
        full.label = "Example login"
        full.comment = "created by the fixture generator"
        full.itemDescription = "web form password"
        full.creator = 0x6170_706C
        full.type = 0x7077_6420
        full.generic = [0x00, 0x01, 0x02, 0xFE, 0xFF]
        full.creationDate = epoch - 86_400_000
        full.modificationDate = epoch + 3_600_000
        full.synchronizable = true
        full.server = "login.example.com"
        full.protocol = "https"
        full.authenticationType = "htmlForm"
        full.port = 8443
        full.path = "/session/new"
        full.securityDomain = "Example Realm"
        full.isInvisible = true
        full.isNegative = true
        try m.add(.internetPassword, .afterFirstUnlock, attributes: full, secret: Array("p@ss w0rd!".utf8))
        try c.success(
            "v1_internet_full",
            file: c.file("v1_internet_full.vault", m.bytes()),
            items: m.items,
            "one internet password with every attribute set"
        )

        // 1,000 items.
        m = try FixtureMaker(seed: "1000_items", slots: [.password(password)])
        for n in 0..<1000 {
            try m.add(
                service: "service-\(n % 37).example.org",
                account: "account-\(n)",
                secret: "secret-\(n)-\(n * 7919)"
            )
        }
        try c.success(
            "v1_1000_items",
            file: c.file("v1_1000_items.vault", m.bytes()),
            items: m.items,
            "1,000 generic passwords"
        )

        try protectionClasses(&c)
        try keyslots(&c)

        // Non-ASCII and emoji.
        m = try FixtureMaker(seed: "unicode", slots: [.password("pässwörd 🔑")])
        try m.add(service: "日本語サービス", account: "Zoë Ångström", secret: "секрет 🔐 秘密")
        try m.add(service: "emoji 🚀 service", account: "👩‍💻", secret: "e\u{301} precomposed é")
        try c.success(
            "v1_unicode",
            file: c.file("v1_unicode.vault", m.bytes()),
            credentials: .init(password: "pässwörd 🔑"),
            items: m.items,
            "non-ASCII and emoji in the password, service, account and secret"
        )

        // An empty secret and a 1 MiB secret.
        m = try FixtureMaker(seed: "secret_sizes", slots: [.password(password)])
        try m.add(attributes: ItemAttributes(service: "sizes", account: "empty"), secret: [])
        try m.add(
            attributes: ItemAttributes(service: "sizes", account: "one-mebibyte"),
            secret: m.random.bytes(1 << 20)
        )
        try c.success(
            "v1_secret_sizes",
            file: c.file("v1_secret_sizes.vault", m.bytes()),
            items: m.items,
            "an empty secret and a 1 MiB secret (Padmé padding)"
        )

        // An unknown non-critical header field and an unknown attribute (tag >= 64).
        m = try FixtureMaker(seed: "unknown_noncritical", slots: [.password(password)])
        var extra = ItemAttributes(service: "future", account: "fields")
        extra.preserved = [PreservedAttribute(tag: 77, value: Array("from v1.7".utf8))]
        try m.add(attributes: extra, secret: Array("kept".utf8))
        m.setUnknownFields([VaultHeader.UnknownField(type: 0x0123, value: Array("a later minor version".utf8))])
        try c.success(
            "header_unknown_noncritical",
            file: c.file("header_unknown_noncritical.vault", m.bytes()),
            items: m.items,
            "unknown non-critical header field 0x0123 and attribute tag 77: ignored, kept on rewrite (R-FLD-3, R-ATT-2)"
        )

        // A newer minor version opens read-only.
        m = try FixtureMaker(seed: "minor_future", slots: [.password(password)])
        try m.add(service: "minor", account: "future", secret: "still readable")
        m.setVersion(major: 1, minor: 7)
        try c.success(
            "header_minor_future",
            file: c.file("header_minor_future.vault", m.bytes()),
            items: m.items,
            readOnly: true,
            "minor version 1.7 opens, read-only (R-HDR-3)"
        )

        // Deletion records.
        m = try FixtureMaker(seed: "deletions", slots: [.password(password)])
        try m.add(service: "keep", account: "alpha", secret: "kept")
        let gone = try m.add(service: "delete", account: "bravo", secret: "deleted")
        try m.remove(gone.id, at: epoch + 30 * 60_000)
        try c.success(
            "v1_deletion_record",
            file: c.file("v1_deletion_record.vault", m.bytes()),
            items: m.items,
            "one item and one deletion record (R-DEL-1)"
        )

        // The default KDF parameters, as a new vault gets them.
        m = try FixtureMaker(seed: "default_kdf", slots: [.password(password, .default)])
        try m.add(service: "default", account: "kdf", secret: "64 MiB, 3 passes, 2 lanes")
        try c.success(
            "v1_default_kdf",
            file: c.file("v1_default_kdf.vault", m.bytes()),
            items: m.items,
            weak: false,
            "default Argon2id parameters (R-KS-4)"
        )
    }

    static func protectionClasses(_ c: inout Builder) throws {
        let device = deviceSecret("A")
        let other = deviceSecret("B")
        let m = try FixtureMaker(seed: "classes", slots: [.password(password)], deviceSecret: device.secret)
        for protection in ProtectionClass.allCases {
            try m.add(
                service: "classes",
                account: protection.description,
                secret: "secret of \(protection)",
                protection
            )
        }
        let file = c.file("v1_protection_classes.vault", try m.bytes())
        try c.success(
            "v1_protection_classes",
            file: file,
            credentials: .init(password: password, deviceSecret: device.hex),
            items: m.items,
            "one item in each of the seven protection classes, read on its own device"
        )
        let portable = m.items.filter { !(ProtectionClass(name: $0.protectionClass)!.isDeviceBound) }
        try c.success(
            "v1_protection_classes_other_device",
            file: file,
            credentials: .init(password: password, deviceSecret: other.hex),
            items: portable,
            unavailable: 4,
            "the same vault on another device: the four ThisDeviceOnly items are foreign (R-REC-2)"
        )
        try c.success(
            "v1_protection_classes_no_device",
            file: file,
            items: portable,
            unavailable: 4,
            "the same vault without any device secret"
        )

        // One of this device's records with its device marker altered must not pass as foreign.
        let snapshot = try VaultSnapshot.open(
            c.files[file]!,
            with: .password(password, deviceSecret: device.secret)
        )
        let index = try snapshot.index
        let bound = (0..<index.count).first { index.entry(at: $0).protectionClass.isDeviceBound }!
        let markerOffset = snapshot.recordsOffset + index.offsets[bound] + 24
        c.failure(
            "record_device_marker_altered",
            file: c.file("record_device_marker_altered.vault", Surgery.flip(c.files[file]!, at: markerOffset)),
            credentials: .init(password: password, deviceSecret: device.hex),
            .recordCorrupt,
            "a bit of a device-bound record's device marker flipped: tampering, not another device (R-REC-2)"
        )

        // A base-scope device keyslot reads the `always` classes without the password.
        let d = try FixtureMaker(
            seed: "device_base_scope",
            slots: [.password(password), .device(device.secret, scope: .baseKey)],
            deviceSecret: device.secret
        )
        for protection in [ProtectionClass.whenUnlocked, .always, .alwaysThisDeviceOnly, .afterFirstUnlock] {
            try d.add(service: "device", account: protection.description, secret: "value \(protection)", protection)
        }
        let deviceFile = c.file("keyslot_device_base_scope.vault", try d.bytes())
        let always = d.items.filter { $0.protectionClass.hasPrefix("always") }
        try c.success(
            "keyslot_device_base_scope",
            file: deviceFile,
            credentials: .init(deviceSecret: device.hex),
            items: always,
            unavailable: 2,
            "a device keyslot of base scope opens the always classes only, with no password"
        )
        try c.success(
            "keyslot_device_base_scope_password",
            file: deviceFile,
            credentials: .init(password: password, deviceSecret: device.hex),
            items: d.items,
            "the same vault with the password reads every class"
        )
        c.failure(
            "keyslot_device_other_machine",
            file: deviceFile,
            credentials: .init(deviceSecret: other.hex),
            .wrongCredential,
            "another machine's device secret matches no device keyslot"
        )
    }

    static func keyslots(_ c: inout Builder) throws {
        let key = keyFile("two")
        let m = try FixtureMaker(seed: "two_keyslots", slots: [.password(password), .keyFile(key)])
        try m.add(service: "two", account: "keyslots", secret: "either opens me")
        let file = c.file("keyslot_password_and_keyfile.vault", try m.bytes())
        let keyName = c.file("keyslot_password_and_keyfile.key", key)
        try c.success(
            "keyslot_two_open_with_password",
            file: file,
            items: m.items,
            "two keyslots; the password one opens"
        )
        try c.success(
            "keyslot_two_open_with_keyfile",
            file: file,
            credentials: .init(keyFile: keyName),
            items: m.items,
            "two keyslots; the key-file one opens"
        )
        c.failure(
            "keyslot_wrong_keyfile",
            file: file,
            credentials: .init(keyFile: "v1_empty.vault"),
            .wrongCredential,
            "another file offered as the key file"
        )

        let both = keyFile("both")
        let b = try FixtureMaker(seed: "composite", slots: [.passwordAndKeyFile(password, both)])
        try b.add(service: "composite", account: "slot", secret: "needs both")
        let compositeFile = c.file("keyslot_composite.vault", try b.bytes())
        let bothName = c.file("keyslot_composite.key", both)
        try c.success(
            "keyslot_composite",
            file: compositeFile,
            credentials: .init(password: password, keyFile: bothName),
            items: b.items,
            "one keyslot that needs the password and the key file together"
        )
        c.failure(
            "keyslot_composite_password_only",
            file: compositeFile,
            .wrongCredential,
            "the composite slot does not open with the password alone"
        )
    }
}
