// vault: rekey: revocation of removed credentials (issue 9 §1; R-KS-5, R-KS-10, L-KS-5).

import Foundation
import Glibc
import Testing
import VaultIO
import VaultTestSupport

@testable import VaultFormat

@Suite("Rekey")
struct RekeyTests {
    // MARK: - The attack

    /// Without a rekey (the behaviour before issue 9), the attack works: this is what the
    /// tests below would see without the fix, and shows that the attack helper really attacks.
    @Test func passwordChange_withoutRekey_oldCopyAndOldPassword_readNewItems() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { try $0.set(makeDraft(service: "before")) }
            let oldCopy = try fileBytes(vault.path)
            try vault.write {
                try $0.replaceKeyslot(at: 0, kind: .password, credentials: .password("new pass"), rekey: nil)
            }
            try vault.write { try $0.set(makeDraft(service: "after", secret: "written with B")) }

            let stolen = try OldCopyAttack.secrets(
                current: try fileBytes(vault.path),
                oldCopy: oldCopy,
                oldCredentials: .password(testPassword)
            )
            #expect(stolen?.contains("written with B") == true)
        }
    }

    /// Issue 9 §1: create with password A, keep a copy, change to B, add an item with B:
    /// the old copy and A must not read the new item.
    @Test func passwordChange_rekeys_oldCopyAndOldPasswordCannotReadNewItems() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { try $0.set(makeDraft(service: "before")) }
            let oldCopy = try fileBytes(vault.path)
            try vault.write { try $0.replaceKeyslot(at: 0, kind: .password, credentials: .password("new pass")) }
            let byB = try Vault(path: vault.path, credentials: .password("new pass"), configuration: testConfiguration)
            try byB.write { try $0.set(makeDraft(service: "after", secret: "written with B")) }

            let current = try fileBytes(vault.path)
            #expect(
                try OldCopyAttack.secrets(current: current, oldCopy: oldCopy, oldCredentials: .password(testPassword))
                    == nil
            )
            // Skipping the header MAC does not help: the old keys do not decrypt the index either.
            let old = try VaultSnapshot.open(oldCopy, with: .password(testPassword))
            let head = try VaultHead.read(current).bytes
            let header = try VaultHeader.decode(head, fileLength: current.count)
            #expect(throws: VaultFormatError(.indexCorrupt)) {
                if header.isVersion3 {
                    // Format 3: the old keys do not open the root (R3-ROOT-1).
                    _ = try Format3Store(header: header, keys: old.keys, source: InMemoryFile(current))
                } else {
                    let length = head.count
                    _ = try VaultIndex.decode(
                        current[length..<length + header.indexLength],
                        header: header,
                        headerBytes: head,
                        keys: old.keys
                    )
                }
            }
            #expect(try secret(in: byB, service: "after") == "written with B")
            #expect(try secret(in: byB, service: "before") != nil)
        }
    }

    /// Removing a recovery keyslot rekeys: the recovery password and an old copy read nothing new.
    @Test func removeRecoveryKeyslot_rekeys_oldCopyAndRecoveryCannotReadNewItems() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { try $0.addKeyslot(.password, credentials: .password("recovery")) }
            let oldCopy = try fileBytes(vault.path)
            let report = try vault.write {
                try $0.removeKeyslot(at: 1, rekey: RekeyOptions(credentials: [.password(testPassword)]))
            }
            #expect(report?.keptKeyslots == [0])
            try vault.write { try $0.set(makeDraft(service: "after", secret: "new secret")) }

            #expect(
                try OldCopyAttack.secrets(
                    current: try fileBytes(vault.path),
                    oldCopy: oldCopy,
                    oldCredentials: .password("recovery")
                ) == nil
            )
            #expect(throws: VaultFormatError(.wrongCredential)) {
                try Vault(path: vault.path, credentials: .password("recovery"), configuration: testConfiguration)
            }
            #expect(try secret(in: vault, service: "after") == "new secret")
        }
    }

    // MARK: - What a rekey keeps

    /// Every item of every class stays readable, with its ID, attributes and secret; the vault ID,
    /// creation time and deletion records stay; every record is sealed again at the new generation.
    @Test func rekey_keepsEveryItemReadable_andRewrapsEverySlotItCanOpen() throws {
        try withTemporaryDirectory { directory in
            let secretPath = makeDeviceSecretFile(in: directory)
            let vault = try Vault.create(
                at: directory + "/v.vault",
                credentials: .password(testPassword),
                keyslots: [.password, .device],
                configuration: deviceConfiguration(secretPath)
            )
            let keyFile = SecretBytes(bytes: SystemRandom().bytes(32))
            var drafts = [ItemDraft]()
            for (n, protection) in ProtectionClass.allCases.enumerated() {
                var draft = makeDraft(service: "s\(n)", secret: "secret \(n)")
                draft.protectionClass = protection
                draft.attributes.label = "label \(n)"
                drafts.append(draft)
            }
            let gone = makeDraft(service: "gone")
            try vault.write { txn in
                for draft in drafts { try txn.set(draft) }
                try txn.set(gone)
                try txn.addKeyslot(.keyFile, credentials: Credentials(keyFile: keyFile))
            }
            try vault.write { try $0.remove(id: gone.id) }
            let before = try vault.read {
                (
                    $0.header, try $0.index.deletions,
                    try $0.index.entries.sorted { $0.itemID < $1.itemID }.map(\.version)
                )
            }
            let storedIDs = try drafts.map { try storedID(of: $0.primaryKey, in: vault) }
            let recordsBefore = try recordSection(of: vault)
            let other = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )

            let report = try vault.write { txn in
                try txn.rekey(RekeyOptions(credentials: [.password(testPassword), Credentials(keyFile: keyFile)]))
            }
            #expect(report.resealed == drafts.count)
            #expect(report.keptKeyslots == [0, 1, 2])
            #expect(report.droppedKeyslots.isEmpty && report.droppedItems.isEmpty)

            try vault.read { snapshot in
                #expect(snapshot.header.vaultID == before.0.vaultID)
                #expect(snapshot.header.created == before.0.created)
                #expect(snapshot.header.generation == before.0.generation + 1)
                #expect(snapshot.header.keyslots.map(\.kind) == before.0.keyslots.map(\.kind))
                #expect(snapshot.header.keyslots.map(\.salt) == before.0.keyslots.map(\.salt))
                let index = try snapshot.index
                #expect(index.deletions.map(\.itemID) == before.1.map(\.itemID))
                // A rekey changes no item: format 3 keeps each record's event as its version.
                let versions =
                    snapshot.header.isVersion3
                    ? before.2 : Array(repeating: snapshot.header.generation, count: index.count)
                #expect(index.entries.sorted { $0.itemID < $1.itemID }.map(\.version) == versions)
            }
            #expect(try recordSection(of: vault) != recordsBefore)
            // Each credential opens its rewrapped slot and reads every item it could read before.
            for credentials in [Credentials.password(testPassword), Credentials(keyFile: keyFile)] {
                var configured = deviceConfiguration(secretPath)
                configured.deviceSecretPath = secretPath
                let reopened = try Vault(path: vault.path, credentials: credentials, configuration: configured)
                for (n, draft) in drafts.enumerated() {
                    #expect(try secret(in: reopened, service: "s\(n)") == "secret \(n)")
                    let item = try reopened.read { snapshot in
                        let position = try #require(try snapshot.position(of: draft.primaryKey))
                        return (try snapshot.index.entry(at: position), try snapshot.attributes(at: position))
                    }
                    #expect(item.0.itemID == storedIDs[n])
                    #expect(item.0.protectionClass == draft.protectionClass)
                    #expect(item.1 == draft.attributes)
                }
                #expect(try reopened.read { try $0.verify() }.skipped == 0)
            }
            // The device secret alone still opens its (base-scope) slot and the always classes.
            let byDevice = try Vault(
                path: vault.path,
                credentials: Credentials(),
                configuration: deviceConfiguration(secretPath)
            )
            #expect(try secret(in: byDevice, service: "s2") == "secret 2")
            // The Vault that rekeyed adopted the new keys and follows its slot; another one must reopen.
            try vault.write { try $0.set(makeDraft(service: "later")) }
            #expect(try secret(in: vault, service: "later") != nil)
            #expect(vault.openedKeyslot == 0)
            #expect(throws: VaultIOError(.credentialsRequired)) { try secret(in: other, service: "s0") }
        }
    }

    /// A slot no credential opens is refused by name, never rewrapped with a guess; `.drop` removes it.
    @Test func rekey_refusesSlotsItCannotOpen_andDropsThemWhenTold() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let keyFile = SecretBytes(bytes: SystemRandom().bytes(32))
            try vault.write { txn in
                try txn.set(makeDraft(service: "a"))
                try txn.addKeyslot(.keyFile, credentials: Credentials(keyFile: keyFile))
                try txn.addKeyslot(.password, credentials: .password("recovery"))
            }
            let before = try fileBytes(vault.path)
            // A wrong recovery password is tried, fails to open slot 2, and so does not keep it.
            let error = try #require(throws: VaultIOError.self) {
                try vault.write {
                    try $0.rekey(RekeyOptions(credentials: [.password(testPassword), .password("wrong")]))
                }
            }
            #expect(error.code == .rekeyRefused)
            #expect(error.reason.hasPrefix("keyslots #1 (keyFile), #2 (password) cannot be rewrapped"))
            #expect(!error.reason.contains("wrong") && !error.reason.contains(testPassword))
            #expect(try fileBytes(vault.path) == before)

            let report = try vault.write {
                try $0.rekey(
                    RekeyOptions(
                        credentials: [.password(testPassword), .password("recovery")],
                        unopenedKeyslots: .drop
                    )
                )
            }
            #expect(report.keptKeyslots == [0, 2])
            #expect(report.droppedKeyslots == [1])
            #expect(try vault.read { $0.header.keyslots.map(\.kind) } == [.password, .password])
            let byRecovery = try Vault(
                path: vault.path,
                credentials: .password("recovery"),
                configuration: testConfiguration
            )
            #expect(try secret(in: byRecovery, service: "a") != nil)
            #expect(throws: VaultFormatError(.wrongCredential)) {
                try Vault(
                    path: vault.path,
                    credentials: Credentials(keyFile: keyFile),
                    configuration: testConfiguration
                )
            }
            // Dropping every master-scope slot is never allowed.
            #expect(throws: VaultFormatError(.invalidParameter)) {
                try vault.write { try $0.rekey(RekeyOptions(unopenedKeyslots: .drop)) }
            }
        }
    }

    /// Another device's ThisDeviceOnly items cannot be sealed again: refused unless dropped.
    @Test func rekey_refusesForeignItems_unlessDropped() throws {
        try withTemporaryDirectory { directory in
            let mine = makeDeviceSecretFile(in: directory, name: "mine")
            let theirs = makeDeviceSecretFile(in: directory, name: "theirs")
            let vault = try makeVault(in: directory, configuration: deviceConfiguration(theirs))
            var foreign = makeDraft(service: "theirs")
            foreign.protectionClass = .whenUnlockedThisDeviceOnly
            try vault.write { txn in
                try txn.set(foreign)
                try txn.set(makeDraft(service: "shared"))
            }
            let foreignID = try storedID(of: foreign.primaryKey, in: vault)
            let here = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: deviceConfiguration(mine)
            )
            var own = makeDraft(service: "mine")
            own.protectionClass = .afterFirstUnlockThisDeviceOnly
            try here.write { try $0.set(own) }
            let before = try fileBytes(vault.path)

            let error = try #require(throws: VaultIOError.self) {
                try here.write { try $0.rekey(RekeyOptions(credentials: [.password(testPassword)])) }
            }
            #expect(error.code == .rekeyRefused)
            #expect(error.reason.hasPrefix("1 ThisDeviceOnly item cannot be sealed again here"))
            #expect(try fileBytes(vault.path) == before)
            // Without any device secret, every device-bound item counts as one that cannot be resealed.
            let noDevice = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            let blind = try #require(throws: VaultIOError.self) {
                try noDevice.write { try $0.rekey(RekeyOptions(credentials: [.password(testPassword)])) }
            }
            #expect(blind.reason.hasPrefix("2 ThisDeviceOnly items"))

            let report = try here.write {
                try $0.rekey(RekeyOptions(credentials: [.password(testPassword)], foreignItems: .drop))
            }
            #expect(report.droppedItems == [foreignID])
            #expect(try secret(in: here, service: "mine") != nil)
            #expect(try secret(in: here, service: "shared") != nil)
            try here.read { snapshot in
                let index = try snapshot.index
                #expect(index.count == 2)
                #expect(index.deletions.map(\.itemID) == [foreignID])
            }
        }
    }

    /// Large vaults are resealed on several threads: every item survives, foreign ones are found in any chunk.
    @Test func rekey_ofThousandsOfItems_resealsEveryOne() throws {
        try withTemporaryDirectory { directory in
            let mine = makeDeviceSecretFile(in: directory, name: "mine")
            let theirs = makeDeviceSecretFile(in: directory, name: "theirs")
            let vault = try makeVault(in: directory, configuration: deviceConfiguration(theirs))
            let count = 5000
            var foreignKeys = [PrimaryKey]()
            try vault.write { txn in
                for n in 0..<count {
                    var draft = makeDraft(service: "s\(n)", secret: "secret \(n)")
                    if n % 1000 == 999 {
                        draft.protectionClass = .alwaysThisDeviceOnly
                        foreignKeys.append(draft.primaryKey)
                    }
                    try txn.set(draft)
                }
            }
            let foreignIDs = Set(try foreignKeys.map { try storedID(of: $0, in: vault) })
            let here = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: deviceConfiguration(mine)
            )
            let refused = try #require(throws: VaultIOError.self) {
                try here.write { try $0.rekey(RekeyOptions(credentials: [.password(testPassword)])) }
            }
            #expect(refused.reason.hasPrefix("\(foreignIDs.count) ThisDeviceOnly items"))
            let report = try here.write {
                try $0.rekey(RekeyOptions(credentials: [.password(testPassword)], foreignItems: .drop))
            }
            #expect(report.resealed == count - foreignIDs.count)
            #expect(Set(report.droppedItems) == foreignIDs)
            let reopened = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            let secrets = try reopened.read { snapshot in
                try snapshot.items(includeSecrets: true).map { String(decoding: $0.secret!.copyBytes(), as: UTF8.self) }
            }
            #expect(Set(secrets) == Set((0..<count).filter { $0 % 1000 != 999 }.map { "secret \($0)" }))
            #expect(try reopened.read { try $0.verify() }.checked == count - foreignIDs.count)
        }
    }

    /// A damaged record stops the rekey: nothing is written.
    @Test func rekey_withADamagedRecord_failsAndWritesNothing() throws {
        try withTemporaryDirectory { directory in
            // The first record at a fixed offset: the layout of format 1.1.
            let vault = try makeVault(in: directory, configuration: testConfiguration11)
            try vault.write { txn in
                for n in 0..<3 { try txn.set(makeDraft(service: "s\(n)")) }
            }
            var bytes = try fileBytes(vault.path)
            let offset = try vault.read { $0.recordsOffset }
            bytes[offset + 40] ^= 0x01  // inside the first record's secret ciphertext
            try Data(bytes).write(to: URL(fileURLWithPath: vault.path))
            #expect(throws: VaultFormatError(.recordCorrupt)) {
                try vault.write { try $0.rekey(RekeyOptions(credentials: [.password(testPassword)])) }
            }
            #expect(try fileBytes(vault.path) == bytes)
        }
    }

    /// A lock() that happens while a rekey is being written stays in force: the new keys are adopted locked.
    @Test func lockDuringARekey_staysLocked_andUnlockFindsTheNewKeys() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { try $0.set(makeDraft(service: "a")) }
            try vault.write { txn in
                try txn.rekey(RekeyOptions(credentials: [.password(testPassword)]))
                vault.lock()
            }
            #expect(vault.isLocked)
            #expect(throws: VaultIOError(.locked)) { try secret(in: vault, service: "a") }
            try vault.unlock(with: .password(testPassword))
            #expect(try secret(in: vault, service: "a") != nil)
        }
    }

    /// The standard vault (one master-scope device slot) rekeys with no credential: the held device
    /// secret opens, and so rewraps, its slot; its ThisDeviceOnly items are this device's.
    @Test func standardVault_rekeysWithTheHeldDeviceSecretAlone() throws {
        try withTemporaryDirectory { directory in
            let vault = try Vault.standard(directory: directory + "/xdg/vault", configuration: testConfiguration)
            let keychain = Keychain(service: "app", vault: vault).accessibility(.whenUnlockedThisDeviceOnly)
            try keychain.set("token", forKey: "k")
            let report = try vault.write { try $0.rekey() }
            #expect(report.keptKeyslots == [0] && report.resealed == 1)
            let reopened = try Vault(
                path: vault.path,
                credentials: Credentials(),
                configuration: deviceConfiguration(directory + "/xdg/vault/device-secret")
            )
            #expect(try Keychain(service: "app", vault: reopened).string(forKey: "k") == "token")
        }
    }

    /// A locked vault has no master key to rekey with.
    @Test func rekey_ofALockedVault_throwsLocked() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            vault.lock()
            #expect(throws: VaultIOError(.locked)) { try vault.write { try $0.rekey() } }
        }
    }

    /// Crash safety: a rekey whose commit fails leaves the old file, and the old keys, in place.
    @Test(arguments: [(Syscall.fsync, 0), (.rename, 0), (.fsync, 1), (.write, 0)])
    func rekey_failedCommit_leavesTheOldFile(_ fault: (Syscall, Int)) throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { try $0.set(makeDraft(service: "bank")) }
            let before = try fileBytes(vault.path)
            #expect(throws: VaultIOError.self) {
                try Syscalls.inject(fault.0, errno: EIO, after: fault.1) {
                    try vault.write { try $0.replaceKeyslot(at: 0, kind: .password, credentials: .password("new")) }
                }
            }
            #expect(try fileBytes(vault.path) == before)
            #expect(try secret(in: vault, service: "bank") != nil)
            let reopened = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            #expect(try secret(in: reopened, service: "bank") != nil)
            try vault.write { try $0.set(makeDraft(service: "after")) }
            #expect(try secret(in: reopened, service: "after") != nil)
        }
    }
}

/// The ID an item is stored under: in a 1.1 vault a device-bound item's ID carries a device
/// tag (R11-DEV-1), so it may differ from its draft's.
private func storedID(of primaryKey: PrimaryKey, in vault: Vault) throws -> ItemID {
    try vault.read { snapshot in
        try snapshot.index.entry(at: try #require(try snapshot.position(of: primaryKey))).itemID
    }
}
