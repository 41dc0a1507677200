// vault: helpers for VaultIO tests: temporary directories, fast vaults, file inspection.

import Foundation
import Glibc
import Testing
import VaultFormat
import VaultIO

/// The password of every test vault.
let testPassword = "correct horse battery staple"

/// Fast Argon2id (64 KiB, 1 pass, 1 lane), allowed only through the testing SPI.
let testConfiguration = VaultConfiguration.insecureForTesting()

/// ``testConfiguration`` creating format-1.1 vaults: for the tests of what formats 1.x and 2.0 do
/// (whole-file writes, R-MRG-17, the layout of a 1.x file), which stay readable and writable.
let testConfiguration11: VaultConfiguration = {
    var configuration = VaultConfiguration.insecureForTesting()
    configuration.newVaultFormat = .version1_1
    return configuration
}()

/// Runs `body` with a fresh directory under the system's temporary directory, then removes it.
func withTemporaryDirectory<R>(_ body: (String) throws -> R) throws -> R {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("vaultio-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url.path)
}

/// Creates `dir/test.vault` with a password keyslot and the fast test KDF.
func makeVault(
    in directory: String,
    name: String = "test.vault",
    configuration: VaultConfiguration = testConfiguration
) throws -> Vault {
    try Vault.create(
        at: directory + "/" + name,
        credentials: .password(testPassword),
        configuration: configuration
    )
}

/// A generic password `service`/`account` with a secret derived from both.
func makeDraft(service: String, account: String = "alice", secret: String? = nil) -> ItemDraft {
    ItemDraft(
        id: ItemID(random: SystemRandom()),
        attributes: ItemAttributes(service: service, account: account),
        secret: SecretBytes(utf8: secret ?? "secret of \(service)/\(account)")
    )
}

/// The primary key of a generic password.
func primaryKey(service: String, account: String = "alice") -> PrimaryKey {
    PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes(service: service, account: account))
}

/// The secret of `service`/`account` in the newest generation, as text.
func secret(in vault: Vault, service: String, account: String = "alice") throws -> String? {
    try vault.read { snapshot in
        guard let position = try snapshot.position(of: primaryKey(service: service, account: account)) else {
            return nil
        }
        return String(decoding: try snapshot.secret(at: position).copyBytes(), as: UTF8.self)
    }
}

/// Every byte of a file.
func fileBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// The names in a directory, sorted.
func directoryNames(_ directory: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
}

/// The permission bits of a file.
func permissions(_ path: String) -> mode_t {
    var info = stat()
    #expect(stat(path, &info) == 0)
    return info.st_mode & 0o7777
}

/// Whether `name` looks like a commit's temporary file.
func isTemporaryName(_ name: String) -> Bool { name.contains(".tmp-") }

/// Writes 32 random bytes to `directory/name` and returns its path (a machine's device secret).
func makeDeviceSecretFile(in directory: String, name: String = "device.secret") -> String {
    let path = directory + "/" + name
    #expect(
        FileManager.default.createFile(
            atPath: path,
            contents: Data(SystemRandom().bytes(32)),
            attributes: [.posixPermissions: 0o600]
        )
    )
    return path
}

/// The test configuration with a device-secret file.
func deviceConfiguration(_ secretPath: String) -> VaultConfiguration {
    var configuration = testConfiguration
    configuration.deviceSecretPath = secretPath
    return configuration
}

/// The bytes of the records section of the vault's newest generation.
///
/// Format 3 has no records section: its records lie among the nodes (Spec/format-v3.md §3), so
/// this is every record's bytes, in item-ID order.
func recordSection(of vault: Vault) throws -> [UInt8] {
    try vault.read { snapshot in
        guard snapshot.header.isVersion3 else { return Array(try fileBytes(vault.path)[snapshot.recordsOffset...]) }
        let index = try snapshot.index
        return try (0..<index.count).sorted { index.entry(at: $0).itemID < index.entry(at: $1).itemID }
            .flatMap { Array(try snapshot.recordBytes(at: $0)) }
    }
}
