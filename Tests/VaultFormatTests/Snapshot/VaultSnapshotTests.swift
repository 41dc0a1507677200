// vault: opening a vault: credentials, keyslots, authentication and damage (Spec section 10.1).

import Testing

@testable import VaultFormat

@Suite("Opening vaults")
struct VaultOpenTests {
    private let vault = TestVault(seed: "open")
    private let keyFile: [UInt8] = Array("key file contents\n".utf8)

    private func position(_ snapshot: VaultSnapshot, service: String, account: String = "alice") throws -> Int {
        try #require(
            try snapshot.position(
                of: PrimaryKey(
                    itemClass: .genericPassword,
                    attributes: ItemAttributes(service: service, account: account)
                )
            )
        )
    }

    // R-KS-3: every slot is tried; a password that opens none is wrongCredential.
    @Test func open_withWrongPassword_throwsWrongCredentialAfterTryingAllSlots() throws {
        let file = try vault.file(
            items: [vault.draft(service: "mail")],
            slots: [try vault.passwordSlot("first"), try vault.keyFileSlot(keyFile), try vault.passwordSlot("second")]
        )
        #expect(throws: VaultFormatError(.wrongCredential)) { try TestVault.open(file, password: "third") }
        #expect(throws: VaultFormatError(.wrongCredential)) {
            try VaultSnapshot.open(file, with: Credentials(keyFile: SecretBytes(bytes: keyFile + [0])))
        }
        #expect(throws: VaultFormatError(.wrongCredential)) { try VaultSnapshot.open(file, with: Credentials()) }
        // The last slot is reached.
        #expect(try TestVault.open(file, password: "second").openedKeyslot == 2)
        #expect(try TestVault.open(file, password: "first").openedKeyslot == 0)
    }

    @Test func open_withPasswordOrKeyFile_eachOpensItsSlot() throws {
        let file = try vault.file(
            items: [vault.draft(service: "mail", secret: "s3cret")],
            slots: [try vault.passwordSlot(), try vault.keyFileSlot(keyFile)]
        )
        let byPassword = try TestVault.open(file)
        let byKeyFile = try VaultSnapshot.open(file, with: Credentials(keyFile: SecretBytes(bytes: keyFile)))
        #expect(byPassword.openedKeyslot == 0)
        #expect(byKeyFile.openedKeyslot == 1)
        for snapshot in [byPassword, byKeyFile] {
            #expect(try snapshot.secret(at: position(snapshot, service: "mail")).copyBytes() == Array("s3cret".utf8))
        }
    }

    @Test func open_passwordAndKeyFileSlot_needsBoth() throws {
        let file = try vault.file(slots: [try vault.passwordAndKeyFileSlot("pw", keyFile)])
        #expect(throws: VaultFormatError(.wrongCredential)) { try TestVault.open(file, password: "pw") }
        #expect(throws: VaultFormatError(.wrongCredential)) {
            try VaultSnapshot.open(file, with: Credentials(keyFile: SecretBytes(bytes: keyFile)))
        }
        let both = Credentials(password: SecretBytes(utf8: "pw"), keyFile: SecretBytes(bytes: keyFile))
        #expect(try VaultSnapshot.open(file, with: both).openedKeyslot == 0)
    }

    // R-IDX-1
    @Test func open_withFlippedIndexByte_throwsIndexCorrupt() throws {
        let file = try vault.file(items: [vault.draft(service: "mail")])
        let headerLength = try EditableHeader(file).original.count
        for offset in [0, 20, 39 + 15] {  // an entry byte, and the index tag
            var bytes = file
            bytes[headerLength + offset] ^= 0x01
            #expect(throws: VaultFormatError(.indexCorrupt)) { try TestVault.open(bytes) }
        }
    }

    // R-REC-1: a damaged record fails when that item is read, and only that item.
    @Test func read_withFlippedRecordByte_throwsRecordCorruptForThatItem() throws {
        let file = try vault.file(items: [vault.draft(service: "a"), vault.draft(service: "b")])
        let clean = try TestVault.open(file)
        let damagedPosition = try position(clean, service: "a")
        let otherPosition = try position(clean, service: "b")
        let start = clean.recordsOffset + (try clean.index.offsets[damagedPosition])
        let entry = try clean.index.entries[damagedPosition]
        let secretByte = start + 24 + 3
        let attributesByte = start + 24 + entry.paddedSecretLength + 16 + 1
        for (flipped, secretFails, attributesFail) in [
            (start, true, true), (secretByte, true, false), (attributesByte, false, true),
        ] {
            var bytes = file
            bytes[flipped] ^= 0x10
            let snapshot = try TestVault.open(bytes)  // records are not read on open
            if secretFails {
                #expect(throws: VaultFormatError(.recordCorrupt)) { try snapshot.secret(at: damagedPosition) }
            } else {
                #expect(try snapshot.secret(at: damagedPosition).copyBytes() == Array("hunter2".utf8))
            }
            if attributesFail {
                #expect(throws: VaultFormatError(.recordCorrupt)) { try snapshot.attributes(at: damagedPosition) }
            } else {
                #expect(try snapshot.attributes(at: damagedPosition).service == "a")
            }
            #expect(try snapshot.secret(at: otherPosition).copyBytes() == Array("hunter2".utf8))
            #expect(throws: VaultFormatError(.recordCorrupt)) { try snapshot.verify() }
        }
    }

    // R-REC-2
    @Test func read_deviceBoundItemWithoutOrWithOtherDeviceSecret_throwsForeignDevice() throws {
        let device = TestVault.deviceSecret(seed: "this device")
        let other = TestVault.deviceSecret(seed: "other device")
        let vault = TestVault(seed: "device-bound", deviceSecret: device)
        let file = try vault.file(items: [
            vault.draft(service: "bound", protection: .whenUnlockedThisDeviceOnly),
            vault.draft(service: "always-bound", protection: .alwaysThisDeviceOnly),
            vault.draft(service: "free", protection: .afterFirstUnlock),
        ])
        for snapshot in [try TestVault.open(file), try TestVault.open(file, device: other)] {
            let entries = try snapshot.index.entries
            let bound = entries.indices.filter { entries[$0].protectionClass.isDeviceBound }
            #expect(bound.count == 2)
            for position in bound {
                #expect(throws: VaultFormatError(.foreignDevice)) { try snapshot.attributes(at: position) }
                #expect(throws: VaultFormatError(.foreignDevice)) { try snapshot.secret(at: position) }
            }
            #expect(throws: VaultFormatError(.foreignDevice)) { try snapshot.items(includeSecrets: true) }
            #expect(
                try snapshot.items(includeSecrets: true, skipUnavailable: true).map(\.attributes.service) == ["free"]
            )
        }
        let own = try TestVault.open(file, device: device)
        #expect(try own.items(includeSecrets: true).count == 3)
    }

    // R-REC-4: a base-scope keyslot opens `always` items, but not `whenUnlocked` ones (keyUnavailable).
    @Test func open_withBaseScopeKeyslot_readsAlwaysItemsOnly() throws {
        let file = try vault.file(
            items: [
                vault.draft(service: "always", secret: "A", protection: .always),
                vault.draft(service: "unlocked", secret: "U", protection: .whenUnlocked),
            ],
            slots: [try vault.passwordSlot(), try vault.passwordSlot("base only", scope: .baseKey)]
        )
        let base = try TestVault.open(file, password: "base only")
        #expect(base.openedKeyslot == 1)
        #expect(base.keys.master == nil)
        #expect(base.keys.availableClasses == [.always])
        #expect(try base.secret(at: position(base, service: "always")).copyBytes() == [0x41])
        let entries = try base.index.entries
        let unlockedPosition = try #require(entries.indices.first { entries[$0].protectionClass == .whenUnlocked })
        #expect(throws: VaultFormatError(.keyUnavailable)) { try base.attributes(at: unlockedPosition) }
        #expect(throws: VaultFormatError(.keyUnavailable)) { try base.secret(at: unlockedPosition) }
        // The master-scope slot reads both.
        #expect(try TestVault.open(file).items(includeSecrets: true).count == 2)
    }

    // R-KS-7: whatever order the reader tries slots in, credentials that open a master-scope
    // slot end with the master key, even when they also open a base-scope slot listed earlier.
    @Test(arguments: [false, true])
    func open_withCredentialsForMasterAndBaseSlots_endsWithMasterKey(baseSlotFirst: Bool) throws {
        let device = TestVault.deviceSecret(seed: "slot order")
        let vault = TestVault(seed: "slot-order", deviceSecret: device)
        let master = try vault.passwordSlot()
        let base = try vault.deviceSlot(device, scope: .baseKey)
        let file = try vault.file(
            items: [vault.draft(service: "unlocked", protection: .whenUnlocked)],
            slots: baseSlotFirst ? [base, master] : [master, base]
        )
        let snapshot = try TestVault.open(file, device: device)
        #expect(snapshot.keys.master != nil)
        #expect(snapshot.header.keyslots[snapshot.openedKeyslot].scope == .masterKey)
        #expect(throws: Never.self) { try snapshot.items(includeSecrets: true) }
        // The device secret alone opens only the base-scope slot (R-REC-4).
        let deviceOnly = try VaultSnapshot.open(file, with: Credentials(deviceSecret: device))
        #expect(deviceOnly.keys.master == nil)
        #expect(throws: VaultFormatError(.keyUnavailable)) { try deviceOnly.items(includeSecrets: true) }
    }
}

@Suite("Reopening with unlocked keys")
struct ReopenWithKeysTests {
    @Test func reopenWithKeys_readsTheNextGenerationWithoutCredentials() throws {
        let vault = TestVault(seed: "reopen")
        let first = try vault.file(items: [vault.draft(service: "a"), vault.draft(service: "b")])
        let snapshot = try TestVault.open(first, password: TestVault.password)
        var writer = try VaultWriter(updating: snapshot)
        try writer.remove(try snapshot.index.entry(at: 0).itemID, now: 5)
        let second = try writer.encode(now: 5, random: vault.random)
        let length = try VaultHeader.headerLength(preamble: second.prefix(16), fileLength: second.count)
        let reopened = try VaultSnapshot.open(
            headerBytes: Array(second[0..<length]),
            fileLength: second.count,
            source: InMemoryFile(second),
            keys: snapshot.keys,
            openedKeyslot: snapshot.openedKeyslot
        )
        #expect(reopened.header.generation == snapshot.header.generation + 1)
        #expect(try reopened.index.count == 1)
    }

    /// R-HDR-6: keys of another vault (or of a re-keyed one) fail the MAC, never read garbage.
    @Test func reopenWithOtherVaultsKeys_failsHeaderAuthentication() throws {
        let one = try TestVault.open(try TestVault(seed: "one").file(), password: TestVault.password)
        let other = try TestVault(seed: "other").file()
        let length = try VaultHeader.headerLength(preamble: other.prefix(16), fileLength: other.count)
        #expect(throws: VaultFormatError(.headerAuthentication)) {
            try VaultSnapshot.open(
                headerBytes: Array(other[0..<length]),
                fileLength: other.count,
                source: InMemoryFile(other),
                keys: one.keys,
                openedKeyslot: 0
            )
        }
    }

    @Test func lockedKeys_dropTheMasterKeyAndTheGivenClasses() throws {
        let snapshot = try TestVault.open(try TestVault(seed: "lock").file(), password: TestVault.password)
        let locked = snapshot.keys.locked(dropping: [.whenUnlocked])
        #expect(locked.master == nil)
        #expect(!locked.availableClasses.contains(.whenUnlocked))
        #expect(locked.availableClasses.contains(.afterFirstUnlock))
        #expect(locked.availableClasses.contains(.always))
    }
}
