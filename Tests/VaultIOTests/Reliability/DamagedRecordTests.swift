// vault: a damaged record is named and isolated; backups are verified copies; device secrets are created once.

import Foundation
import Glibc
import Testing
import VaultFormat
import VaultIO

/// Which part of a record to damage.
enum RecordPart {
    /// The last byte of the attributes' tag: nothing of the item opens.
    case attributes
    /// The first byte of the secret's ciphertext: the attributes still open.
    case secret
}

/// Flips one byte of item `id`'s record in the file, in place (as a disk error would).
func damage(_ part: RecordPart, of id: ItemID, in vault: Vault) throws {
    let offset = try vault.read { snapshot in
        let position = try #require(try snapshot.index.entries.firstIndex { $0.itemID == id })
        let start = snapshot.recordsOffset + (try snapshot.index.offsets[position])
        let entry = try snapshot.index.entry(at: position)
        switch part {
        case .attributes: return start + entry.recordLength - 1
        case .secret: return start + XChaCha20Poly1305.nonceByteCount
        }
    }
    var bytes = try fileBytes(vault.path)
    bytes[offset] ^= 0x01
    try Data(bytes).write(to: URL(fileURLWithPath: vault.path))
}

@Suite("Damaged records")
struct DamagedRecordTests {
    @Test func salvage_readsEveryOtherItem_andNamesEachDamagedOne() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let drafts = ["a", "b", "c"].map { makeDraft(service: $0) }
            try vault.write { txn in for draft in drafts { try txn.set(draft) } }
            try damage(.attributes, of: drafts[1].id, in: vault)
            try damage(.secret, of: drafts[2].id, in: vault)

            // The whole-vault read still fails, as before, but now names the item.
            let thrown = try #require(throws: ItemDamage.self) {
                try vault.read { snapshot in try (0..<3).map { try snapshot.item(at: $0, includeSecret: true) } }
            }
            #expect([drafts[1].id, drafts[2].id].contains(thrown.entry.itemID))

            let salvaged = try vault.read { try $0.salvage(includeSecrets: true) }
            #expect(salvaged.items.map(\.attributes.service) == ["a"])
            #expect(salvaged.unavailable.isEmpty)
            let damaged = Dictionary(uniqueKeysWithValues: salvaged.damaged.map { ($0.entry.itemID, $0) })
            #expect(Set(damaged.keys) == [drafts[1].id, drafts[2].id])
            #expect(damaged[drafts[1].id]?.attributes == nil)
            #expect(damaged[drafts[2].id]?.attributes?.service == "c")
            #expect(damaged[drafts[2].id]?.description.contains(#"(generic "c"/"alice")"#) == true)
            #expect(damaged.values.allSatisfy { $0.error.code == .recordCorrupt })

            let report = try vault.read { try $0.verifyEachItem() }
            #expect(report.checked == 1)
            #expect(Set(report.damaged.map(\.entry.itemID)) == [drafts[1].id, drafts[2].id])
        }
    }

    @Test func aWriteThatMeetsADamagedRecord_namesIt() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let draft = makeDraft(service: "a")
            try vault.write { try $0.set(draft) }
            try damage(.attributes, of: draft.id, in: vault)
            let lookup = try #require(throws: ItemDamage.self) {
                try vault.write { txn in _ = try txn.item(for: primaryKey(service: "a")) }
            }
            #expect(lookup.entry.itemID == draft.id)
            let replace = try #require(throws: ItemDamage.self) {
                try vault.write { try $0.set(makeDraft(service: "a")) }
            }
            #expect(replace.entry.itemID == draft.id)
        }
    }

    @Test func removingADamagedRecordByID_needsNoDecryption_andLeavesASoundVault() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let drafts = ["a", "b"].map { makeDraft(service: $0) }
            try vault.write { txn in for draft in drafts { try txn.set(draft) } }
            try damage(.attributes, of: drafts[1].id, in: vault)
            let removed = try vault.write { txn in try txn.remove(id: drafts[1].id) }
            #expect(removed)
            let report = try vault.read { try $0.verifyEachItem() }
            #expect(report.checked == 1)
            #expect(report.damaged.isEmpty)
        }
    }
}

@Suite("Backup")
struct BackupTests {
    @Test func backup_isAByteEqualCopy_mode0600_authenticatedWithACredential() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { try $0.set(makeDraft(service: "kept")) }
            let copy = try Vault.backup(
                of: vault.path,
                to: directory + "/copy.vault",
                credentials: .password(testPassword)
            )
            #expect(copy.authenticated)
            #expect(copy.generation == 2)
            #expect(try fileBytes(copy.path) == fileBytes(vault.path))
            #expect(permissions(copy.path) == 0o600)
            let reopened = try Vault(
                path: copy.path,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            #expect(try secret(in: reopened, service: "kept") == "secret of kept/alice")
        }
    }

    @Test func backup_defaultName_isNextToTheVault_withAUTCTime() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            // 2026-01-02T03:04:05Z
            let copy = try Vault.backup(of: vault.path, now: 1_767_323_045_000)
            #expect(copy.path == vault.path + ".backup-20260102T030405Z")
            #expect(!copy.authenticated)
            #expect(try fileBytes(copy.path) == fileBytes(vault.path))
            // A second backup in the same second gets a counter instead of failing.
            let second = try Vault.backup(of: vault.path, now: 1_767_323_045_500)
            #expect(second.path == vault.path + ".backup-20260102T030405Z.2")
            #expect(try Vault.backup(of: vault.path, now: 1_767_323_045_900).path.hasSuffix("Z.3"))
            #expect(try fileBytes(copy.path) == fileBytes(vault.path))
        }
    }

    @Test func backup_neverReplacesAFile() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let existing = directory + "/taken"
            try Data("mine".utf8).write(to: URL(fileURLWithPath: existing))
            #expect(throws: VaultIOError(.alreadyExists)) { try Vault.backup(of: vault.path, to: existing) }
            #expect(try fileBytes(existing) == Array("mine".utf8))
        }
    }

    @Test func backup_withAWrongCredential_writesNothing() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            #expect(throws: VaultFormatError(.wrongCredential)) {
                try Vault.backup(of: vault.path, to: directory + "/copy", credentials: .password("wrong"))
            }
            #expect(!FileManager.default.fileExists(atPath: directory + "/copy"))
        }
    }

    @Test(arguments: [(Syscall.write, 0), (Syscall.fsync, 0), (Syscall.fsync, 1)])
    func backup_whoseWriteFails_leavesNoFile(_ fault: (Syscall, Int)) throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let before = try directoryNames(directory)
            let error = try #require(throws: VaultIOError.self) {
                try Syscalls.inject(fault.0, errno: EIO, after: fault.1) {
                    try Vault.backup(of: vault.path, to: directory + "/copy")
                }
            }
            #expect(error.code == .system)
            #expect(try directoryNames(directory) == before)
        }
    }
}

@Suite("Device secret creation")
struct DeviceSecretCreationTests {
    @Test func createNew_writes32Bytes_mode0600_andNeverReplaces() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/sub/device-secret"
            try DeviceSecretFile.createNew(at: path)
            #expect(permissions(path) == 0o600)
            #expect(permissions(directory + "/sub") == 0o700)
            let first = try fileBytes(path)
            #expect(first.count == 32)
            #expect(throws: VaultIOError(.alreadyExists)) { try DeviceSecretFile.createNew(at: path) }
            #expect(try fileBytes(path) == first)
            #expect(try DeviceSecretFile.load(at: path).secret.copyBytes() == first)
        }
    }

    @Test func load_refusesAFileOthersCanRead() throws {
        try withTemporaryDirectory { directory in
            let path = makeDeviceSecretFile(in: directory)
            #expect(chmod(path, 0o644) == 0)
            #expect(throws: VaultIOError(.invalidDeviceSecret)) { try DeviceSecretFile.load(at: path) }
        }
    }
}
