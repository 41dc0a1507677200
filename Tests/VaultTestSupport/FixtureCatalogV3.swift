// vault: the catalog of golden format-3 fixtures, generated from fixed seeds.

import VaultFormat

/// Every fixture of `Fixtures/v3` (Spec/format-v3.md, Spec/merge.md R-MRG-18), each case in one
/// file: vaults that open, one defect per file that does not, and replicas whose merge the
/// manifest gives.
///
/// `swift run vault-fixturegen Fixtures/v3` writes them; `FixtureV3Tests` proves that the landed
/// files equal what this code makes, byte for byte. Landed fixtures are frozen: change this code
/// only to add cases.
public enum FixtureCatalogV3 {
    /// The folder under `Fixtures/`.
    public static let folder = "v3"
    /// The password of every fixture but `v3_password_nfc` (the same as v1).
    public static let password = FixtureCatalog.password
    /// What every seed of this folder starts with.
    static let seedPrefix = "vault fixtures v3: "

    /// Generates every fixture.
    public static func generate() throws -> FixtureCatalog.Output {
        var c = FixtureCatalog.Builder()
        try positive(&c)
        try negative(&c)
        try merges(&c)
        let manifest = FixtureManifest(
            format: "vault v3",
            generator: "swift run vault-fixturegen Fixtures/v3",
            cases: c.cases
        )
        c.files["manifest.json"] = try manifest.encoded()
        return FixtureCatalog.Output(files: c.files, manifest: manifest)
    }

    // MARK: - Credentials and makers

    static func deviceSecret(_ name: String) -> (secret: DeviceSecret, hex: String) {
        let bytes = SeededRandom(seed: "vault fixtures v3 device: " + name).bytes(32)
        return (DeviceSecret(secret: SecretBytes(bytes: bytes)), Hex.encode(bytes))
    }

    static func keyFile(_ name: String) -> (bytes: [UInt8], file: String) {
        (SeededRandom(seed: "vault fixtures v3 key file: " + name).bytes(64), name + ".key")
    }

    typealias Person = (identity: RecipientIdentity, file: String)

    static func identity(_ name: String) -> Person {
        (
            RecipientIdentity.generate(random: SeededRandom(seed: "vault fixtures v3 identity: " + name)),
            name + ".identity"
        )
    }

    /// A new format-3 vault (a 1.1 writer raised to 3 before its first write, as `Vault.create`
    /// does), its randomness from `seed`.
    static func maker(_ seed: String, slots: [SlotSpec]? = nil, device: DeviceSecret? = nil) throws -> FixtureMaker {
        let m = try FixtureMaker(
            seed: seed,
            slots: slots ?? [.password(password)],
            deviceSecret: device,
            minor: 1,
            seedPrefix: seedPrefix
        )
        try m.upgradeToVersion3()
        return m
    }

    /// A generic password's draft with its dates at `minutes` after the epoch.
    static func draft(
        _ id: ItemID,
        service: String,
        account: String,
        secret: String,
        _ protection: ProtectionClass = .whenUnlocked,
        minutes: Int64,
        created: Int64? = nil
    ) -> ItemDraft {
        var attributes = ItemAttributes(service: service, account: account)
        attributes.creationDate = FixtureCatalog.epoch + (created ?? minutes) * 60_000
        attributes.modificationDate = FixtureCatalog.epoch + minutes * 60_000
        return ItemDraft(id: id, protectionClass: protection, attributes: attributes, secret: SecretBytes(utf8: secret))
    }

    static func time(_ minutes: Int64) -> Int64 { FixtureCatalog.epoch + minutes * 60_000 }

    // MARK: - What a file holds

    /// The histories and deletion entries of a format-3 file, read with `credentials`.
    struct Read {
        var histories: [String: [String]]
        var deletions: [FixtureDeletion]
        var generation: UInt64
        /// Bytes after the commit read (R3-SLT-6).
        var tail: Int
    }

    static func read(_ file: [UInt8], _ credentials: Credentials) throws -> Read {
        let snapshot = try VaultSnapshot.open(file, with: credentials)
        let contents = try snapshot.format3!.contents()
        var histories: [String: [String]] = [:]
        for position in 0..<contents.index.count {
            histories[contents.index.entry(at: position).itemID.description] = hex(contents.histories[position])
        }
        let deletions = contents.deletions.values.sorted { $0.key.itemID < $1.key.itemID }.map {
            FixtureDeletion(
                id: $0.key.itemID.description,
                deletedAt: $0.deletedAt,
                history: hex($0.history),
                tag: Hex.encode(withUnsafeBytes(of: $0.key.tag.bigEndian) { Array($0) }),
                scope: [Int($0.scope.kind), Int($0.scope.domain)]
            )
        }
        return Read(
            histories: histories,
            deletions: deletions,
            generation: snapshot.header.generation,
            tail: file.count - snapshot.header.committedLength!
        )
    }

    static func hex(_ history: EventHistory) -> [String] { history.events.map(\.description) }
}

extension FixtureCatalog.Builder {
    /// A format-3 success case: `items` get their histories from `file`, the case its deletion
    /// entries, the generation read and the length of the uncommitted tail.
    mutating func successV3(
        _ name: String,
        file: String,
        credentials: FixtureCredentials = .init(password: FixtureCatalogV3.password),
        opening: Credentials? = nil,
        items: [FixtureItem],
        unavailable: Int = 0,
        readOnly: Bool = false,
        weak: Bool = true,
        skippedCommit: Bool = false,
        writer: String? = nil,
        _ comment: String
    ) throws {
        let bytes = files[file]!
        let read = try FixtureCatalogV3.read(bytes, opening ?? .password(FixtureCatalogV3.password))
        var annotated = items
        for index in annotated.indices { annotated[index].history = read.histories[annotated[index].id]! }
        try success(
            name,
            file: file,
            credentials: credentials,
            items: annotated,
            unavailable: unavailable,
            readOnly: readOnly,
            weak: weak,
            writer: writer,
            comment
        )
        cases[cases.count - 1].generation = read.generation
        cases[cases.count - 1].deletions = read.deletions
        if skippedCommit { cases[cases.count - 1].skippedCommit = true }
        if read.tail > 0 { cases[cases.count - 1].uncommittedTail = read.tail }
    }
}
