// vault: the catalog of golden format 1.1 fixtures, generated from fixed seeds.

import VaultFormat

/// Every fixture of `Fixtures/v1.1`: what format 1.1 adds (Spec/format-v1.1.md) and the
/// rules of 1.0 that issue 9 clarified, each in one file.
///
/// `swift run vault-fixturegen Fixtures/v1.1` writes them; `FixtureV11Tests` proves that
/// the landed files equal what this code makes, byte for byte.
public enum FixtureCatalogV11 {
    /// The password of most fixtures (the same as v1).
    public static let password = FixtureCatalog.password
    /// "Ångström café" typed with combining marks (NFD), as some systems deliver it.
    public static let decomposedPassword = "A\u{30A}ngstro\u{308}m cafe\u{301}"
    /// The same password in NFC.
    public static let composedPassword = "\u{C5}ngstr\u{F6}m caf\u{E9}"

    /// Generates every fixture.
    public static func generate() throws -> FixtureCatalog.Output {
        var c = FixtureCatalog.Builder()
        try deviceAttribution(&c)
        try passwords(&c)
        try migrated(&c)
        try clarifications(&c)
        let manifest = FixtureManifest(
            format: "vault v1.1",
            generator: "swift run vault-fixturegen Fixtures/v1.1",
            cases: c.cases
        )
        c.files["manifest.json"] = try manifest.encoded()
        return FixtureCatalog.Output(files: c.files, manifest: manifest)
    }

    static func deviceSecret(_ name: String) -> (secret: DeviceSecret, hex: String) {
        let bytes = SeededRandom(seed: "vault fixtures v1.1 device: " + name).bytes(32)
        return (DeviceSecret(secret: SecretBytes(bytes: bytes)), Hex.encode(bytes))
    }

    static func maker(_ seed: String, slots: [SlotSpec]? = nil, device: DeviceSecret? = nil) throws -> FixtureMaker {
        try FixtureMaker(seed: seed, slots: slots ?? [.password(password)], deviceSecret: device, minor: 1)
    }

    // MARK: - Device attribution (R11-DEV-1 to R11-DEV-3)

    static func deviceAttribution(_ c: inout FixtureCatalog.Builder) throws {
        var m = try maker("empty")
        try c.success("v11_empty", file: c.file("v11_empty.vault", m.bytes()), items: [], "a 1.1 vault with no items")

        m = try maker("generic_one")
        try m.add(service: "com.example.api", account: "deploy-bot", secret: "s3cr3t-token-0001")
        try c.success(
            "v11_generic_one",
            file: c.file("v11_generic_one.vault", m.bytes()),
            items: m.items,
            "one generic password, whenUnlocked, in a 1.1 vault"
        )

        let device = deviceSecret("A")
        let other = deviceSecret("B")
        m = try maker("protection_classes", device: device.secret)
        for protection in ProtectionClass.allCases {
            try m.add(
                service: "classes",
                account: protection.description,
                secret: "secret of \(protection)",
                protection
            )
        }
        let file = c.file("v11_protection_classes.vault", try m.bytes())
        let own = FixtureCredentials(password: password, deviceSecret: device.hex)
        try c.success(
            "v11_protection_classes",
            file: file,
            credentials: own,
            items: m.items,
            "one item in each protection class; the four ThisDeviceOnly items have device-tagged IDs (R11-DEV-1)"
        )
        let portable = m.items.filter { !(ProtectionClass(name: $0.protectionClass)!.isDeviceBound) }
        try c.success(
            "v11_protection_classes_other_device",
            file: file,
            credentials: .init(password: password, deviceSecret: other.hex),
            items: portable,
            unavailable: 4,
            "the same vault on another device: the ThisDeviceOnly items are foreign (R11-DEV-2)"
        )

        let bytes = c.files[file]!
        let snapshot = try VaultSnapshot.open(bytes, with: .password(password, deviceSecret: device.secret))
        let index = try snapshot.index
        let bound = (0..<index.count).first { index.entry(at: $0).protectionClass.isDeviceBound }!
        let recordStart = snapshot.recordsOffset + index.offsets[bound]
        let nonceFlipped = c.file("record_own_device_nonce_flipped.vault", Surgery.flip(bytes, at: recordStart + 3))
        c.failure(
            "record_own_device_nonce_flipped",
            file: nonceFlipped,
            credentials: own,
            .recordCorrupt,
            "a bit of the nonce of this device's record flipped: damage, not another device (R11-DEV-2; issue 9)"
        )
        try c.success(
            "record_own_device_nonce_flipped_other_device",
            file: nonceFlipped,
            credentials: .init(password: password, deviceSecret: other.hex),
            items: portable,
            unavailable: 4,
            "the same damaged file on another device: that device cannot tell, the item is foreign to it"
        )
        c.failure(
            "record_own_device_marker_flipped",
            file: c.file("record_own_device_marker_flipped.vault", Surgery.flip(bytes, at: recordStart + 24)),
            credentials: own,
            .recordCorrupt,
            "a bit of the device marker of this device's record flipped (R11-DEV-2)"
        )
        c.failure(
            "record_own_device_secret_flipped",
            file: c.file("record_own_device_secret_flipped.vault", Surgery.flip(bytes, at: recordStart + 45)),
            credentials: own,
            .recordCorrupt,
            "a bit of the secret ciphertext of this device's record flipped (R11-DEV-2)"
        )
    }

    // MARK: - Passwords (R11-PW-1) and the KDF work of one open (R-KS-8)

    static func passwords(_ c: inout FixtureCatalog.Builder) throws {
        let m = try maker("nfc_password", slots: [.password(decomposedPassword)])
        try m.add(service: "unicode", account: "nfc", secret: "opened by either form")
        let file = c.file("v11_password_nfc.vault", try m.bytes())
        try c.success(
            "v11_password_nfc_typed_decomposed",
            file: file,
            credentials: .init(password: decomposedPassword),
            items: m.items,
            "the password typed in NFD (combining marks) opens: the KDF input is its NFC form (R11-PW-1)"
        )
        try c.success(
            "v11_password_nfc_typed_composed",
            file: file,
            credentials: .init(password: composedPassword),
            items: m.items,
            "the same password typed in NFC opens the same keyslot (R11-PW-1)"
        )

        let three = try maker("kdf_total", slots: [.password(password), .password(password), .password(password)])
        var bad = try three.bytes()
        var offset = 16
        while offset < Surgery.headerLength(bad) - 64 {
            let type = UInt16(bad[offset]) | UInt16(bad[offset + 1]) << 8
            let length = Int(bad[offset + 2]) | Int(bad[offset + 3]) << 8
            if type == 0x8004 {
                Surgery.poke(&bad, at: offset + 6 + 3, value: 1_048_576, size: 4)
                Surgery.poke(&bad, at: offset + 6 + 7, value: 4, size: 4)
            }
            offset += 6 + length
        }
        Surgery.fixChecksum(&bad)
        c.failure(
            "kdf_total_work_too_large",
            file: c.file("kdf_total_work_too_large.vault", bad),
            .kdfRejected,
            "three password keyslots of 1 GiB x 4 passes: each within R-KS-2, together over the 8 GiB-pass cap (R-KS-8)"
        )
    }

    // MARK: - Migration (R11-MIG-1)

    static func migrated(_ c: inout FixtureCatalog.Builder) throws {
        let own = deviceSecret("migrating")
        let other = deviceSecret("other")
        let m = try FixtureMaker(
            seed: "migrated",
            slots: [.password(password)],
            deviceSecret: own.secret,
            minor: 0
        )
        let ownDraft = try m.add(service: "migrated", account: "own", secret: "own device", .whenUnlockedThisDeviceOnly)
        try m.add(service: "migrated", account: "portable", secret: "anywhere")
        try m.reopen(m.bytes(minutes: 60), with: .password(password, deviceSecret: other.secret))
        try m.add(service: "migrated", account: "theirs", secret: "other device", .afterFirstUnlockThisDeviceOnly)
        try m.reopen(m.bytes(minutes: 90), with: .password(password, deviceSecret: own.secret))
        let report = try m.upgradeToVersion11(at: FixtureCatalog.epoch + 120 * 60_000)
        precondition(report == .init(retagged: 1, pending: 0, foreign: 1))
        let file = c.file("v11_migrated_from_v1.vault", try m.bytes(minutes: 120))
        let taggedID = m.keys.deviceTaggedID(from: ownDraft.id)!.description
        var items = m.items
        for i in items.indices where items[i].id == ownDraft.id.description { items[i].id = taggedID }
        try c.success(
            "v11_migrated_from_v1",
            file: file,
            credentials: .init(password: password, deviceSecret: own.hex),
            items: items.filter { $0.attributes.account != "theirs" },
            unavailable: 1,
            "a 1.0 vault of two devices migrated on the first: its item moved to a tagged ID, the old ID has a deletion record (R11-MIG-1)"
        )
        try c.success(
            "v11_migrated_from_v1_other_device",
            file: file,
            credentials: .init(password: password, deviceSecret: other.hex),
            items: items.filter { $0.attributes.account != "own" },
            unavailable: 1,
            "the other device still reads its untagged item by the 1.0 marker rule (R11-DEV-2 step 3)"
        )
    }

    // MARK: - Clarified 1.0 rules (issue 9, section 6)

    static func clarifications(_ c: inout FixtureCatalog.Builder) throws {
        let base = try maker("clarify_base")
        try base.add(service: "clarify", account: "one", secret: "one")
        let good = try base.bytes()

        // R-KS-1: the salt-length check comes before the read that would run off the end.
        var shortSlot = Surgery.rewriteHeaderFields(good) { fields in
            fields.map { $0.type == 0x8004 ? (0x8004, Array($0.value[0..<15]) + [8]) : $0 }
        }
        c.failure(
            "keyslot_short_after_bad_salt_length",
            file: c.file("keyslot_short_after_bad_salt_length.vault", shortSlot),
            .kdfRejected,
            "a password keyslot that ends right after a salt length of 8: checks in byte order, kdfRejected before structure (R-KS-1)"
        )
        shortSlot = Surgery.rewriteHeaderFields(good) { fields in
            fields.map { $0.type == 0x8004 ? (0x8004, Array($0.value[0..<40])) : $0 }
        }
        c.failure(
            "keyslot_short_inside_salt",
            file: c.file("keyslot_short_inside_salt.vault", shortSlot),
            .structure,
            "a password keyslot that ends inside its salt: structure (R-KS-1)"
        )

        // R-FLD-6: the keyslot count is checked field by field, the item counts after the last field.
        let many = Surgery.rewriteHeaderFields(good) { fields in
            let keyslot = fields.first { $0.type == 0x8004 }!
            return fields + Array(repeating: keyslot, count: 32) + [(0x8123, [1, 2, 3])]
        }
        c.failure(
            "header_keyslots_33",
            file: c.file("header_keyslots_33.vault", many),
            .limit,
            "33 keyslot fields followed by an unknown critical field: the 33rd keyslot is limit when it is met (R-FLD-6)"
        )
        var count = good
        Surgery.poke(&count, at: Surgery.fieldOffset(good, type: 0x8005) + 24, value: 1_000_001, size: 4)
        Surgery.fixChecksum(&count)
        c.failure(
            "header_record_count_too_large",
            file: c.file("header_record_count_too_large.vault", count),
            .limit,
            "recordCount 1,000,001: limit, checked after the last field and before the file length (R-FLD-6, R-FILE-1)"
        )

        // R-KS-3 / R-KS-7 / R-KS-9: a base-scope slot whose key is not the vault's base key.
        let device = deviceSecret("mismatch")
        let mismatch = try maker(
            "base_scope_mismatch",
            slots: [
                .password(password),
                .deviceWrapping(device.secret, SecretBytes(bytes: Array(repeating: 0x42, count: 32))),
            ],
            device: device.secret
        )
        try mismatch.add(service: "mismatch", account: "portable", secret: "one", .whenUnlocked)
        try mismatch.add(service: "mismatch", account: "always", secret: "two", .always)
        let mismatchFile = c.file("keyslot_base_scope_mismatch.vault", try mismatch.bytes())
        try c.success(
            "keyslot_base_scope_mismatch_password",
            file: mismatchFile,
            credentials: .init(password: password, deviceSecret: device.hex),
            items: mismatch.items,
            "password and device secret: the master-scope slot wins whatever the try order (R-KS-7), the bad base-scope slot is never used"
        )
        c.failure(
            "keyslot_base_scope_mismatch_device_only",
            file: mismatchFile,
            credentials: .init(deviceSecret: device.hex),
            .headerAuthentication,
            "the device secret alone opens only the base-scope slot, whose key is not the vault's BK: the MAC fails (R-KS-9)"
        )

        // R-ATT-2: a preserved tag may carry an empty value, and is reported with the item.
        let preserved = try maker("preserved_empty")
        var attributes = ItemAttributes(service: "preserved", account: "empty")
        attributes.preserved = [PreservedAttribute(tag: 64, value: []), PreservedAttribute(tag: 255, value: [7])]
        try preserved.add(attributes: attributes, secret: Array("kept".utf8))
        try c.success(
            "attribute_preserved_empty",
            file: c.file("attribute_preserved_empty.vault", preserved.bytes()),
            items: preserved.items,
            "preserved tags 64 (empty value) and 255: accepted, listed under attributes.preserved (R-ATT-2)"
        )

        // R-IDX-5: primary-key uniqueness covers only the items a reader can decrypt.
        let own = deviceSecret("duplicate")
        let dup = try maker("hidden_duplicate", device: own.secret)
        let first = try dup.add(service: "duplicate", account: "same", secret: "portable copy")
        let hidden = ItemDraft(
            id: dup.keys.deviceTaggedID(from: ItemID(random: dup.random))!,
            protectionClass: .whenUnlockedThisDeviceOnly,
            attributes: first.attributes,
            secret: SecretBytes(utf8: "device copy")
        )
        let sealed = try RecordCodec.seal(
            hidden,
            version: dup.writer.header.generation,
            vaultID: dup.vaultID,
            keys: dup.keys,
            random: dup.random
        )
        try dup.insertRaw(sealed, expected: nil)
        let dupFile = c.file("record_duplicate_primary_key_hidden.vault", try dup.bytes())
        try c.success(
            "record_duplicate_primary_key_hidden",
            file: dupFile,
            items: dup.items,
            unavailable: 1,
            "two items share a primary key, one device-bound: without the device secret the duplicate cannot be seen (R-IDX-5)"
        )
        c.failure(
            "record_duplicate_primary_key_device",
            file: dupFile,
            credentials: .init(password: password, deviceSecret: own.hex),
            .recordCorrupt,
            "the same file with the device secret: both items are readable and the duplicate is recordCorrupt (R-IDX-5)"
        )
    }
}

extension Surgery {
    /// Re-encodes the header with `transform` applied to its fields, a fresh `headerLength`
    /// and checksum, and the old (now stale) MAC; the rest of the file follows unchanged.
    static func rewriteHeaderFields(
        _ file: [UInt8],
        _ transform: ([(type: UInt16, value: [UInt8])]) -> [(type: UInt16, value: [UInt8])]
    ) -> [UInt8] {
        let length = headerLength(file)
        var fields: [(type: UInt16, value: [UInt8])] = []
        var offset = 16
        while offset < length - 64 {
            let type = UInt16(file[offset]) | UInt16(file[offset + 1]) << 8
            let size =
                Int(file[offset + 2]) | Int(file[offset + 3]) << 8 | Int(file[offset + 4]) << 16
                | Int(file[offset + 5]) << 24
            fields.append((type, Array(file[offset + 6..<offset + 6 + size])))
            offset += 6 + size
        }
        var header = Array(file[0..<16])
        for field in transform(fields) {
            header += [UInt8(field.type & 0xFF), UInt8(field.type >> 8)]
            let size = field.value.count
            header += (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) }
            header += field.value
        }
        let newLength = header.count + 64
        for shift in 0..<4 { header[12 + shift] = UInt8(truncatingIfNeeded: newLength >> (8 * shift)) }
        header += BLAKE2b.hash(header, length: 32)
        header += file[length - 32..<length]
        return header + file[length...]
    }
}
