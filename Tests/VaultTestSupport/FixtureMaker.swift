// vault: building one deterministic vault for the fixture catalog.

import VaultFormat

/// A keyslot to put in a fixture vault.
enum SlotSpec {
    case password(String, KDFParameters = FixtureCatalog.fastKDF, scope: Keyslot.Scope = .masterKey)
    case keyFile([UInt8])
    case passwordAndKeyFile(String, [UInt8])
    case device(DeviceSecret, scope: Keyslot.Scope)
    /// A base-scope device keyslot that wraps `key` instead of the vault's base key.
    case deviceWrapping(DeviceSecret, SecretBytes)
}

/// Builds one vault from a seeded random source and records what it holds.
///
/// Every random byte (master key, vault ID, salts, nonces, item IDs) comes from
/// a ``SeededRandom`` named after the fixture, so the bytes are reproducible.
final class FixtureMaker {
    let random: SeededRandom
    let vaultID: [UInt8]
    let master: MasterKey
    private(set) var writer: VaultWriter
    private(set) var items: [FixtureItem] = []
    private(set) var drafts: [ItemDraft] = []

    /// The format minor version written: 0 for `Fixtures/v1`, 1 for `Fixtures/v1.1`.
    let minor: UInt16

    /// - Parameter seedPrefix: What the seed of every random byte starts with; by default
    ///   `vault fixtures v1: ` or `vault fixtures v1.<minor>: `.
    init(
        seed: String,
        slots: [SlotSpec],
        deviceSecret: DeviceSecret? = nil,
        minor: UInt16 = 0,
        seedPrefix: String? = nil
    ) throws {
        self.minor = minor
        random = SeededRandom(
            seed: (seedPrefix ?? (minor == 0 ? "vault fixtures v1: " : "vault fixtures v1.\(minor): ")) + seed
        )
        master = random.key()
        vaultID = random.bytes(16)
        let keys = KeyHierarchy.keys(master: master, deviceSecret: deviceSecret, vaultID: vaultID)
        let base = KeyHierarchy.baseKey(from: master)
        var keyslots = [Keyslot]()
        for spec in slots {
            keyslots.append(
                try Self.keyslot(spec, master: master, base: base, vaultID: vaultID, random: random, minor: minor)
            )
        }
        writer = try VaultWriter(
            vaultID: vaultID,
            created: FixtureCatalog.epoch,
            keyslots: keyslots,
            keys: keys
        )
        writer.setVersion(major: 1, minor: minor)
        writer.keepsDeletionShadows = false
    }

    private static func keyslot(
        _ spec: SlotSpec,
        master: MasterKey,
        base: BaseKey,
        vaultID: [UInt8],
        random: SeededRandom,
        minor: UInt16
    ) throws -> Keyslot {
        switch spec {
        case .password(let password, let kdf, let scope):
            return try KeyHierarchy.makeKeyslot(
                kind: .password,
                wrapping: scope == .masterKey ? master.secret : base.secret,
                scope: scope,
                credentials: .password(password),
                kdf: kdf,
                vaultID: vaultID,
                random: random,
                allowWeak: true,
                normalizesPassword: minor >= 1
            )
        case .keyFile(let keyFile):
            return try KeyHierarchy.makeKeyslot(
                kind: .keyFile,
                wrapping: master.secret,
                scope: .masterKey,
                credentials: Credentials(keyFile: SecretBytes(bytes: keyFile)),
                vaultID: vaultID,
                random: random
            )
        case .passwordAndKeyFile(let password, let keyFile):
            return try KeyHierarchy.makeKeyslot(
                kind: .passwordAndKeyFile,
                wrapping: master.secret,
                scope: .masterKey,
                credentials: Credentials(password: SecretBytes(utf8: password), keyFile: SecretBytes(bytes: keyFile)),
                kdf: FixtureCatalog.fastKDF,
                vaultID: vaultID,
                random: random,
                allowWeak: true,
                normalizesPassword: minor >= 1
            )
        case .deviceWrapping(let device, let key):
            return try KeyHierarchy.makeKeyslot(
                kind: .device,
                wrapping: key,
                scope: .baseKey,
                credentials: Credentials(deviceSecret: device),
                vaultID: vaultID,
                random: random
            )
        case .device(let device, let scope):
            return try KeyHierarchy.makeKeyslot(
                kind: .device,
                wrapping: scope == .masterKey ? master.secret : base.secret,
                scope: scope,
                credentials: Credentials(deviceSecret: device),
                vaultID: vaultID,
                random: random
            )
        }
    }

    /// Adds an item dated `minutes` after the fixture epoch.
    @discardableResult
    func add(
        _ itemClass: ItemClass = .genericPassword,
        _ protection: ProtectionClass = .whenUnlocked,
        attributes: ItemAttributes,
        secret: [UInt8],
        minutes: Int64 = 0,
        id: ItemID? = nil
    ) throws -> ItemDraft {
        var attributes = attributes
        if attributes.creationDate == 0 { attributes.creationDate = FixtureCatalog.epoch + minutes * 60_000 }
        if attributes.modificationDate == 0 { attributes.modificationDate = attributes.creationDate }
        let draft = ItemDraft(
            id: id ?? ItemID(random: random),
            itemClass: itemClass,
            protectionClass: protection,
            attributes: attributes,
            secret: SecretBytes(bytes: secret)
        )
        var stored = draft
        stored.id = try writer.put(draft, random: random)
        drafts.append(stored)
        items.append(Self.expected(stored, secret: secret))
        return stored
    }

    /// Adds a generic password with text fields.
    @discardableResult
    func add(service: String, account: String, secret: String, _ protection: ProtectionClass = .whenUnlocked)
        throws -> ItemDraft
    {
        try add(
            .genericPassword,
            protection,
            attributes: ItemAttributes(service: service, account: account),
            secret: Array(secret.utf8)
        )
    }

    /// Replaces an item's attributes and secret (same ID).
    func update(_ draft: ItemDraft) throws {
        var draft = draft
        draft.id = try writer.put(draft, random: random)
        let secret = draft.secret.copyBytes()
        items.removeAll { $0.id == draft.id.description }
        items.append(Self.expected(draft, secret: secret))
        drafts.removeAll { $0.id == draft.id }
        drafts.append(draft)
    }

    /// Removes an item, leaving a deletion record.
    func remove(_ id: ItemID, at time: Int64) throws {
        // Format 3 draws the deletion's event from `random`; earlier formats draw nothing.
        try writer.remove(id, now: time, random: random)
        items.removeAll { $0.id == id.description }
        drafts.removeAll { $0.id == id }
    }

    /// Replaces the writer (for building a second generation).
    func reopen(_ file: [UInt8], with credentials: Credentials) throws {
        writer = try VaultWriter(updating: try VaultSnapshot.open(file, with: credentials))
        writer.keepsDeletionShadows = false
    }

    /// The keys records are sealed with.
    var keys: VaultKeys { writer.keys }

    /// Adds a record sealed elsewhere, unchanged, and records it as expected.
    func insertRaw(_ record: SealedRecord, expected: FixtureItem?) throws {
        try writer.insertRaw(record)
        if let expected { items.append(expected) }
    }

    /// Raises the next generation to format 1.1 and re-tags this device's items (R11-MIG-1).
    func upgradeToVersion11(at time: Int64) throws -> VaultWriter.RetagReport {
        writer.upgradeToVersion11()
        return try writer.retagDeviceItems(now: time, random: random)
    }

    /// Adds a recipient stanza to the next generation (format 1.2, R12-RCP-2).
    func addRecipient(_ key: RecipientKey, name: String) throws {
        try writer.addRecipient(Recipient(key: key, name: name), random: random)
    }

    /// Writes a recipient stanza into a file of a lower minor version, where it is an unknown field.
    func addRecipientIgnoringVersion(_ key: RecipientKey, name: String) throws {
        let minor = writer.header.minor
        writer.setVersion(major: 1, minor: 2)
        try addRecipient(key, name: name)
        writer.setVersion(major: 1, minor: minor)
    }

    /// Removes the recipient at `index` and rekeys under a fresh master key (R12-RCP-6); every
    /// keyslot is a password slot of `password` and is rewrapped.
    func removeRecipientAndRekey(at index: Int, password: String, at time: Int64) throws {
        try writer.removeRecipient(at: index)
        let master: MasterKey = random.key()
        let newKeys = KeyHierarchy.keys(master: master, deviceSecret: writer.keys.deviceSecret, vaultID: vaultID)
        var slots = [Keyslot]()
        for slot in writer.header.keyslots {
            let kek = try KeyHierarchy.keyEncryptionKey(
                opening: slot,
                with: .password(password),
                vaultID: vaultID,
                normalizingPassword: true
            )!
            slots.append(KeyHierarchy.rewrap(slot, key: master.secret, using: kek, vaultID: vaultID, random: random))
        }
        try writer.rekey(to: newKeys, keyslots: slots, droppingForeign: false, now: time, random: random)
    }

    /// Raises the next generation to format 2.0 (R2-MIG-1).
    func upgradeToVersion2() throws { try writer.upgradeToVersion2() }

    /// Adds a recipient limited to `accessGroup` (format 2.0, R2-RCP-2).
    func addRecipient(_ key: RecipientKey, name: String, limitedTo accessGroup: String) throws {
        try writer.addRecipient(Recipient(key: key, name: name), limitedTo: accessGroup, random: random)
    }

    /// Raises the next generation to format 3 (Spec/format-v3.md §11): it is written whole.
    func upgradeToVersion3() throws { try writer.upgradeToVersion3() }

    /// Format 3: the next generation as a writer commits it on `file` (in place: the appended
    /// bytes and the other slot; or a whole new file), at the fixture epoch plus `minutes`.
    func committed(on file: [UInt8], minutes: Int64) throws -> [UInt8] {
        switch try generation(minutes: minutes) {
        case .whole(let bytes): return bytes
        case .inPlace(let commit): return commit.applied(to: file)
        }
    }

    /// Format 3: the next generation, not yet applied to a file.
    func generation(minutes: Int64) throws -> EncodedGeneration {
        try writer.encodeGeneration(now: FixtureCatalog.epoch + minutes * 60_000, random: random)
    }

    func setUnknownFields(_ fields: [VaultHeader.UnknownField]) { writer.setUnknownFields(fields) }
    func setVersion(major: UInt16, minor: UInt16) { writer.setVersion(major: major, minor: minor) }

    /// The file bytes, encoded at the fixture epoch plus `minutes`.
    func bytes(minutes: Int64 = 60) throws -> [UInt8] {
        try writer.encode(now: FixtureCatalog.epoch + minutes * 60_000, random: random)
    }

    static func expected(_ draft: ItemDraft, secret: [UInt8]) -> FixtureItem {
        let text = secret.count <= 256 ? String(validating: secret, as: UTF8.self) : nil
        return FixtureItem(
            id: draft.id.description,
            itemClass: draft.itemClass.description,
            protectionClass: draft.protectionClass.description,
            attributes: draft.attributes,
            secret: text,
            secretLength: secret.count,
            secretBLAKE2b: Hex.encode(BLAKE2b.hash(secret, length: 32))
        )
    }
}

// MARK: - Byte surgery for negative fixtures

enum Surgery {
    /// The header length of a well-formed file.
    static func headerLength(_ file: [UInt8]) -> Int {
        Int(file[12]) | Int(file[13]) << 8 | Int(file[14]) << 16 | Int(file[15]) << 24
    }

    /// Recomputes the header checksum, as an attacker who edits the header would.
    static func fixChecksum(_ file: inout [UInt8]) {
        let length = headerLength(file)
        let checksum = BLAKE2b.hash(file[0..<length - 64], length: 32)
        file.replaceSubrange(length - 64..<length - 32, with: checksum)
    }

    /// Flips the low bit of the byte at `offset`.
    static func flip(_ file: [UInt8], at offset: Int) -> [UInt8] {
        var copy = file
        copy[offset] ^= 0x01
        return copy
    }

    /// Offset of the value of the first header field of `type`.
    static func fieldOffset(_ file: [UInt8], type: UInt16) -> Int {
        var offset = 16
        let end = headerLength(file) - 64
        while offset < end {
            let fieldType = UInt16(file[offset]) | UInt16(file[offset + 1]) << 8
            let length =
                Int(file[offset + 2]) | Int(file[offset + 3]) << 8 | Int(file[offset + 4]) << 16
                | Int(file[offset + 5]) << 24
            if fieldType == type { return offset + 6 }
            offset += 6 + length
        }
        fatalError("no header field \(type)")
    }

    /// Writes a little-endian value over `size` bytes at `offset`.
    static func poke(_ file: inout [UInt8], at offset: Int, value: UInt64, size: Int) {
        for shift in 0..<size { file[offset + shift] = UInt8(truncatingIfNeeded: value >> (8 * shift)) }
    }

    /// Where the records section starts.
    static func recordsOffset(_ file: [UInt8]) -> Int {
        let index = fieldOffset(file, type: 0x8005)
        let count = Int(file[index + 24]) | Int(file[index + 25]) << 8 | Int(file[index + 26]) << 16
        let deletions = Int(file[index + 28]) | Int(file[index + 29]) << 8 | Int(file[index + 30]) << 16
        return headerLength(file) + 39 * count + 24 * deletions + 16
    }
}
