// vault: the catalog of golden v1 fixtures, generated from fixed seeds.

import Foundation
import VaultFormat

/// Every v1 fixture: the files and the manifest that describes them.
///
/// `swift run vault-fixturegen Fixtures/v1` writes them; `FixtureReproductionTests`
/// proves that the landed files equal what this code makes, byte for byte.
/// Landed fixtures are frozen: change this file only to add cases.
public enum FixtureCatalog {
    /// 2026-01-01T00:00:00Z in milliseconds: every fixture date is relative to it.
    public static let epoch: Int64 = 1_767_225_600_000
    /// The password of most fixtures.
    public static let password = "correct horse battery staple"
    /// Argon2id parameters below the floor for new vaults, so that fixtures open fast.
    public static let fastKDF = KDFParameters(memoryKiB: 256, iterations: 1, lanes: 1)

    /// The generated files (name to bytes) and the manifest.
    public struct Output {
        /// File name to contents, including `manifest.json`, key files and item lists.
        public var files: [String: [UInt8]]
        /// The manifest.
        public var manifest: FixtureManifest
    }

    /// Generates every fixture.
    public static func generate() throws -> Output {
        var catalog = Builder()
        try positive(&catalog)
        try negative(&catalog)
        let manifest = FixtureManifest(
            format: "vault v1",
            generator: "swift run vault-fixturegen Fixtures/v1",
            cases: catalog.cases
        )
        catalog.files["manifest.json"] = try manifest.encoded()
        return Output(files: catalog.files, manifest: manifest)
    }

    struct Builder {
        var files: [String: [UInt8]] = [:]
        var cases: [FixtureCase] = []

        mutating func file(_ name: String, _ bytes: [UInt8]) -> String {
            precondition(files[name] == nil, "duplicate fixture file \(name)")
            files[name] = bytes
            return name
        }

        mutating func success(
            _ name: String,
            file: String,
            credentials: FixtureCredentials = .init(password: password),
            items: [FixtureItem],
            unavailable: Int = 0,
            readOnly: Bool = false,
            weak: Bool = true,
            writer: String? = nil,
            _ comment: String
        ) throws {
            var entry = FixtureCase(
                name: name,
                file: file,
                expect: "success",
                error: nil,
                credentials: credentials,
                items: items,
                itemsFile: nil,
                unavailable: unavailable,
                readOnly: readOnly ? true : nil,
                weakKDF: weak,
                comment: comment,
                writer: writer
            )
            if items.count > 20 {
                let listName = name + ".items.json"
                files[listName] = Array(try JSONEncoderFactory.make().encode(items)) + [0x0A]
                entry.items = nil
                entry.itemsFile = listName
            }
            cases.append(entry)
        }

        mutating func failure(
            _ name: String,
            file: String,
            credentials: FixtureCredentials = .init(password: password),
            _ error: VaultFormatError.Code,
            writer: String? = nil,
            _ comment: String
        ) {
            cases.append(
                FixtureCase(
                    name: name,
                    file: file,
                    expect: "failure",
                    error: error.name,
                    credentials: credentials,
                    items: nil,
                    itemsFile: nil,
                    unavailable: nil,
                    readOnly: nil,
                    weakKDF: nil,
                    comment: comment,
                    writer: writer
                )
            )
        }
    }

    static func deviceSecret(_ name: String) -> (secret: DeviceSecret, hex: String) {
        let bytes = SeededRandom(seed: "vault fixtures v1 device: " + name).bytes(32)
        return (DeviceSecret(secret: SecretBytes(bytes: bytes)), Hex.encode(bytes))
    }

    static func keyFile(_ name: String) -> [UInt8] {
        SeededRandom(seed: "vault fixtures v1 key file: " + name).bytes(64)
    }
}
