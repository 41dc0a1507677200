// vault: small vaults built with the real writer, and byte-level header editing.

import Testing

@testable import VaultFormat

/// A vault under construction: seeded randomness, tiny Argon2 costs, real writer.
///
/// Every file in these tests comes from ``VaultWriter`` and ``KeyHierarchy/makeKeyslot``;
/// tests then change bytes to reach the rule under test.
struct TestVault {
    /// Argon2id costs small enough for unit tests (allowed only with `allowWeak`).
    static let tinyKDF = KDFParameters(memoryKiB: 64, iterations: 1, lanes: 1)
    static let password = "correct horse battery staple"
    /// A fixed "now": 2023-11-14T22:13:20Z.
    static let now: Int64 = 1_700_000_000_000

    let random: SeededRandom
    let master: MasterKey
    let vaultID: [UInt8]
    let deviceSecret: DeviceSecret?
    let keys: VaultKeys

    init(seed: String, deviceSecret: DeviceSecret? = nil) {
        random = SeededRandom(seed: seed)
        master = random.key()
        vaultID = random.bytes(16)
        self.deviceSecret = deviceSecret
        keys = KeyHierarchy.keys(master: master, deviceSecret: deviceSecret, vaultID: vaultID)
    }

    /// A device secret drawn from a seed.
    static func deviceSecret(seed: String) -> DeviceSecret { SeededRandom(seed: seed).key() }

    private func wrappedKey(_ scope: Keyslot.Scope) -> SecretBytes {
        scope == .masterKey ? master.secret : KeyHierarchy.baseKey(from: master).secret
    }

    func passwordSlot(_ password: String = TestVault.password, scope: Keyslot.Scope = .masterKey) throws -> Keyslot {
        try KeyHierarchy.makeKeyslot(
            kind: .password,
            wrapping: wrappedKey(scope),
            scope: scope,
            credentials: .password(password),
            kdf: Self.tinyKDF,
            vaultID: vaultID,
            random: random,
            allowWeak: true
        )
    }

    func keyFileSlot(_ keyFile: [UInt8], scope: Keyslot.Scope = .masterKey) throws -> Keyslot {
        try KeyHierarchy.makeKeyslot(
            kind: .keyFile,
            wrapping: wrappedKey(scope),
            scope: scope,
            credentials: Credentials(keyFile: SecretBytes(bytes: keyFile)),
            vaultID: vaultID,
            random: random,
            allowShortKeyFile: true
        )
    }

    func passwordAndKeyFileSlot(_ password: String, _ keyFile: [UInt8]) throws -> Keyslot {
        try KeyHierarchy.makeKeyslot(
            kind: .passwordAndKeyFile,
            wrapping: master.secret,
            scope: .masterKey,
            credentials: Credentials(password: SecretBytes(utf8: password), keyFile: SecretBytes(bytes: keyFile)),
            kdf: Self.tinyKDF,
            vaultID: vaultID,
            random: random,
            allowWeak: true,
            allowShortKeyFile: true
        )
    }

    func deviceSlot(_ device: DeviceSecret, scope: Keyslot.Scope = .baseKey) throws -> Keyslot {
        try KeyHierarchy.makeKeyslot(
            kind: .device,
            wrapping: wrappedKey(scope),
            scope: scope,
            credentials: Credentials(deviceSecret: device),
            vaultID: vaultID,
            random: random
        )
    }

    /// A writer for generation 1, with one master-scope password slot unless `slots` is given.
    func writer(slots: [Keyslot]? = nil) throws -> VaultWriter {
        try VaultWriter(vaultID: vaultID, created: Self.now - 1000, keyslots: slots ?? [passwordSlot()], keys: keys)
    }

    func draft(
        service: String,
        account: String = "alice",
        secret: String = "hunter2",
        protection: ProtectionClass = .whenUnlocked
    ) -> ItemDraft {
        ItemDraft(
            id: ItemID(random: random),
            protectionClass: protection,
            attributes: ItemAttributes(service: service, account: account),
            secret: SecretBytes(utf8: secret)
        )
    }

    /// Writes `items` into a new vault and returns the file bytes.
    func file(items: [ItemDraft] = [], slots: [Keyslot]? = nil) throws -> [UInt8] {
        var writer = try writer(slots: slots)
        for item in items { try writer.put(item, random: random) }
        return try writer.encode(now: Self.now, random: random)
    }

    static func open(_ file: [UInt8], password: String = TestVault.password, device: DeviceSecret? = nil) throws
        -> VaultSnapshot
    {
        try VaultSnapshot.open(file, with: .password(password, deviceSecret: device))
    }
}

/// A vault file split into its header fields and the rest, for editing.
///
/// ``file(headerKey:)`` re-encodes the header with a correct checksum, so an edit
/// reaches the rules after R-HDR-5; the MAC stays the stale one unless a header
/// key is given.
struct EditableHeader {
    var major: UInt16
    var minor: UInt16
    var fields: [(type: UInt16, value: [UInt8])]
    var mac: [UInt8]
    /// The original header bytes.
    let original: [UInt8]
    /// Index and records.
    var body: [UInt8]

    init(_ file: [UInt8]) throws {
        var r = ByteReader(file)
        _ = try r.read(8, "magic")
        major = try r.u16("major")
        minor = try r.u16("minor")
        let length = Int(try r.u32("length"))
        var fields: [(UInt16, [UInt8])] = []
        var f = ByteReader(file[16..<(length - 64)])
        while !f.isAtEnd {
            let type = try f.u16("type")
            let count = Int(try f.u32("length"))
            fields.append((type, Array(try f.read(count, "value"))))
        }
        self.fields = fields
        mac = Array(file[(length - 32)..<length])
        original = Array(file[..<length])
        body = Array(file[length...])
    }

    func values(_ type: UInt16) -> [[UInt8]] { fields.filter { $0.type == type }.map(\.value) }

    mutating func replace(_ type: UInt16, with value: [UInt8]) {
        let index = fields.firstIndex { $0.type == type }!
        fields[index].value = value
    }

    /// The header bytes up to the checksum, with `headerLength` filled in.
    private var prefix: [UInt8] {
        var w = ByteWriter()
        w.append(VaultHeader.magic)
        w.u16(major)
        w.u16(minor)
        w.u32(0)
        for field in fields {
            w.u16(field.type)
            w.u32(UInt32(field.value.count))
            w.append(field.value)
        }
        let length = UInt32(w.bytes.count + 64)
        w.bytes.replaceSubrange(12..<16, with: withUnsafeBytes(of: length.littleEndian) { Array($0) })
        return w.bytes
    }

    /// The file with a correct checksum; the MAC is recomputed only when `headerKey` is given.
    func file(headerKey: SecretBytes? = nil) -> [UInt8] {
        var header = prefix
        header += BLAKE2b.hash(header, length: 32)
        header += headerKey.map { BLAKE2b.hash(header, key: $0, length: 32) } ?? mac
        return header + body
    }

    /// A fully valid file: checksum and MAC recomputed, and the index re-sealed with the new header as AD.
    func resealedFile(keys: VaultKeys) throws -> [UInt8] {
        let header = try VaultHeader.decode(original, fileLength: original.count + body.count)
        let sealed = Array(body[..<header.indexLength])
        let plain = try #require(
            XChaCha20Poly1305.open(sealed, using: keys.indexKey, nonce: header.indexNonce, authenticating: original)
        )
        var newHeader = prefix
        newHeader += BLAKE2b.hash(newHeader, length: 32)
        newHeader += BLAKE2b.hash(newHeader, key: keys.headerKey, length: 32)
        var index = [UInt8]()
        XChaCha20Poly1305.seal(
            plain,
            using: keys.indexKey,
            nonce: header.indexNonce,
            authenticating: newHeader,
            appendingTo: &index
        )
        return newHeader + index + Array(body[header.indexLength...])
    }
}

extension Array where Element == UInt8 {
    /// Little-endian bytes of an integer.
    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        Swift.withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// Whether `needle` occurs anywhere in `self`.
    func contains(subsequence needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        return (0...(count - needle.count)).contains { start in
            self[start..<(start + needle.count)].elementsEqual(needle)
        }
    }
}

/// The header field types of Spec section 4.1.
enum Field {
    static let vaultID: UInt16 = 0x8001
    static let created: UInt16 = 0x8002
    static let generation: UInt16 = 0x8003
    static let keyslot: UInt16 = 0x8004
    static let index: UInt16 = 0x8005
}
