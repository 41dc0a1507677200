// vault tests: the rules format 1.1 adds (Spec/format-v1.1.md).

import Testing
import VaultFormat
import VaultTestSupport

@Suite("Format 1.1")
struct Version11Tests {
    /// Keys of the section 14.1 vectors: MK = 00…1f, DS = 20…3f, vault ID = 40…4f.
    static func vectorKeys() -> VaultKeys {
        KeyHierarchy.keys(
            master: MasterKey(secret: SecretBytes(bytes: Array(0..<32) as [UInt8])),
            deviceSecret: DeviceSecret(secret: SecretBytes(bytes: Array(0x20..<0x40) as [UInt8])),
            vaultID: Array(0x40..<0x50)
        )
    }

    /// R11-DEV-1 vector: ID = r || BLAKE2b(8, DMK, "VLT1dvid" || r).
    @Test func deviceTaggedID_matchesTheSpecVector() throws {
        let keys = Self.vectorKeys()
        let untagged = ItemID(bytes: Array(0x50..<0x60) as [UInt8])
        let tagged = try #require(keys.deviceTaggedID(from: untagged))
        #expect(tagged.description == "5051525354555657e1964cda50b03bca")
        #expect(keys.isOwnDeviceItem(tagged))
        #expect(!keys.isOwnDeviceItem(untagged))
        let other = KeyHierarchy.keys(
            master: MasterKey(secret: SecretBytes(bytes: Array(0..<32) as [UInt8])),
            deviceSecret: DeviceSecret(secret: SecretBytes(bytes: Array(0x60..<0x80) as [UInt8])),
            vaultID: Array(0x40..<0x50)
        )
        #expect(!other.isOwnDeviceItem(tagged), "another device's secret does not recognise the tag")
    }

    static func flipNonceOfFirstDeviceRecord(_ file: [UInt8], device: DeviceSecret) throws -> [UInt8] {
        let snapshot = try TestVault.open(file, device: device)
        let position = try #require(
            try snapshot.index.entries.firstIndex { $0.protectionClass.isDeviceBound }
        )
        var copy = file
        copy[snapshot.recordsOffset + (try snapshot.index.offsets[position]) + 3] ^= 0x10
        return copy
    }

    /// Issue 9 §4: one bit of the nonce of this device's record is damage (R11-DEV-2), not another device.
    @Test func flippedNonceOfOwnDeviceRecord_isRecordCorrupt_in11_andForeign_in10() throws {
        let device = TestVault.deviceSecret(seed: "v11 device")
        for minor in [UInt16(0), 1] {
            let vault = TestVault(seed: "v11 nonce \(minor)", deviceSecret: device)
            var writer = try vault.writer()
            writer.setVersion(major: 1, minor: minor)
            try writer.put(vault.draft(service: "svc", protection: .whenUnlockedThisDeviceOnly), random: vault.random)
            let file = try writer.encode(now: TestVault.now, random: vault.random)
            #expect(try TestVault.open(file, device: device).verifyReport().ownDeviceItems == (minor == 1 ? 1 : 0))
            let damaged = try Self.flipNonceOfFirstDeviceRecord(file, device: device)
            let snapshot = try TestVault.open(damaged, device: device)
            let error = #expect(throws: VaultFormatError.self) { try snapshot.secret(at: 0) }
            #expect(error?.code == (minor == 1 ? .recordCorrupt : .foreignDevice), "minor \(minor)")
        }
    }

    /// R11-DEV-1: a 1.1 writer stores a device-bound item under its tagged ID; a 1.0 writer does not.
    @Test func writerTagsDeviceBoundItemsOnlyIn11() throws {
        let device = TestVault.deviceSecret(seed: "v11 device")
        let vault = TestVault(seed: "v11 tag", deviceSecret: device)
        var writer = try vault.writer()
        let bound = vault.draft(service: "bound", protection: .alwaysThisDeviceOnly)
        let portable = vault.draft(service: "portable")
        let boundID = try writer.put(bound, random: vault.random)
        #expect(try writer.put(portable, random: vault.random) == portable.id)
        #expect(boundID != bound.id && boundID.bytes.prefix(8) == bound.id.bytes.prefix(8))
        #expect(try writer.entry(for: bound.id) == nil && writer.entry(for: boundID) != nil)
        // Making a stored portable item device-bound moves it, leaving a deletion record (R-DEL-1).
        var changed = portable
        changed.protectionClass = .afterFirstUnlockThisDeviceOnly
        let movedID = try writer.put(changed, now: TestVault.now, random: vault.random)
        #expect(try movedID != portable.id && writer.entry(for: portable.id) == nil)
        #expect(writer.deletions[portable.id] == TestVault.now)

        var old = try vault.writer()
        old.setVersion(major: 1, minor: 0)
        #expect(try old.put(bound, random: vault.random) == bound.id)
    }

    /// R11-MIG-1: upgrading retags this device's items and leaves other devices' alone.
    @Test func upgradeRetagsOwnItems_andKeepsForeignOnes() throws {
        let mine = TestVault.deviceSecret(seed: "v11 mine")
        let theirs = TestVault.deviceSecret(seed: "v11 theirs")
        let vault = TestVault(seed: "v11 upgrade", deviceSecret: mine)
        var writer = try vault.writer()
        writer.setVersion(major: 1, minor: 0)
        let own = vault.draft(service: "own", protection: .whenUnlockedThisDeviceOnly)
        try writer.put(own, random: vault.random)
        let file10 = try writer.encode(now: TestVault.now, random: vault.random)
        // Their device adds an item to the same 1.0 vault.
        var their = try VaultWriter(updating: try TestVault.open(file10, device: theirs))
        try their.put(vault.draft(service: "theirs", protection: .whenUnlockedThisDeviceOnly), random: vault.random)
        let shared = try their.encode(now: TestVault.now, random: vault.random)

        var upgrade = try VaultWriter(updating: try TestVault.open(shared, device: mine))
        let upgraded = upgrade.upgradeToVersion11()
        #expect(upgraded)
        let report = try upgrade.retagDeviceItems(now: TestVault.now)
        #expect(report == .init(retagged: 1, pending: 0, foreign: 1))
        let file11 = try upgrade.encode(now: TestVault.now, random: vault.random)
        let snapshot = try TestVault.open(file11, device: mine)
        #expect(snapshot.header.minor == 1)
        let checked = try snapshot.verifyReport()
        #expect(
            [checked.checked, checked.foreign, checked.unavailable, checked.ownDeviceItems, checked.damaged.count]
                == [1, 1, 0, 1, 0]
        )
        #expect(try snapshot.index.deletions.map(\.itemID) == [own.id])
        // The other device still reads its own item (1.0 attribution for untagged IDs).
        #expect(try TestVault.open(file11, device: theirs).verifyReport().checked == 1)
        // A second pass finds nothing to do.
        var again = try VaultWriter(updating: snapshot)
        let upgradedAgain = again.upgradeToVersion11()
        #expect(!upgradedAgain)
        #expect(try again.retagDeviceItems(now: TestVault.now) == .init(retagged: 0, pending: 0, foreign: 1))
    }

    // MARK: - Passwords (R11-PW-1)

    @Test func nfc_composesDecomposedText_andLeavesASCIIAndInvalidUTF8Alone() {
        let decomposed = SecretBytes(bytes: [0x63, 0x61, 0x66, 0x65, 0xCC, 0x81] as [UInt8])  // "cafe" + U+0301
        #expect(PasswordNormalization.nfc(decomposed).copyBytes() == [0x63, 0x61, 0x66, 0xC3, 0xA9])
        let angstrom = SecretBytes(bytes: [0xE2, 0x84, 0xAB] as [UInt8])  // U+212B ANGSTROM SIGN
        #expect(PasswordNormalization.nfc(angstrom).copyBytes() == [0xC3, 0x85])
        #expect(PasswordNormalization.nfc(SecretBytes(utf8: "plain")).copyBytes() == Array("plain".utf8))
        let invalid = SecretBytes(bytes: [0x61, 0xFF, 0xCC, 0x81] as [UInt8])
        #expect(PasswordNormalization.nfc(invalid).copyBytes() == [0x61, 0xFF, 0xCC, 0x81])
    }

    /// The same password typed as NFC on one system and NFD on another opens a 1.1 vault, not a 1.0 one.
    @Test func decomposedPassword_opens11Vault_butNot10() throws {
        let composed = "caf\u{E9} cr\u{E8}me"
        let decomposed = "cafe\u{301} cre\u{300}me"
        #expect(Array(composed.utf8) != Array(decomposed.utf8))
        for minor in [UInt16(0), 1] {
            let vault = TestVault(seed: "v11 nfc \(minor)")
            let slot = try KeyHierarchy.makeKeyslot(
                kind: .password,
                wrapping: vault.master.secret,
                scope: .masterKey,
                credentials: .password(composed),
                kdf: TestVault.tinyKDF,
                vaultID: vault.vaultID,
                random: vault.random,
                allowWeak: true,
                normalizesPassword: minor >= 1
            )
            var writer = try vault.writer(slots: [slot])
            writer.setVersion(major: 1, minor: minor)
            let file = try writer.encode(now: TestVault.now, random: vault.random)
            #expect(throws: Never.self) { try TestVault.open(file, password: composed) }
            if minor == 1 {
                #expect(throws: Never.self) { try TestVault.open(file, password: decomposed) }
            } else {
                #expect(throws: VaultFormatError(.wrongCredential)) { try TestVault.open(file, password: decomposed) }
            }
        }
    }

    // MARK: - KDF work of one open (R-KS-8)

    @Test func totalArgon2WorkOverTheCap_isRejectedBeforeAnyArgon2() throws {
        let vault = TestVault(seed: "v11 cap")
        var slot = try vault.passwordSlot()
        slot.kdf = .sensitive  // 1 GiB × 4: exactly the single-slot ceiling
        let two = VaultHeader(vaultID: vault.vaultID, created: 0, generation: 1, keyslots: [slot, slot])
        let three = VaultHeader(vaultID: vault.vaultID, created: 0, generation: 1, keyslots: [slot, slot, slot])
        // Two slots at the ceiling are allowed (and fail only when Argon2 would run: not reached here
        // because no credential is offered).
        #expect(throws: VaultFormatError(.wrongCredential)) { try KeyHierarchy.unlock(two, with: Credentials()) }
        // Three are refused up front, whatever the credentials.
        #expect(throws: VaultFormatError(.kdfRejected)) { try KeyHierarchy.unlock(three, with: Credentials()) }
        #expect(throws: VaultFormatError(.kdfRejected)) {
            try KeyHierarchy.unlock(three, with: .password("anything"))
        }
        #expect(throws: VaultFormatError(.kdfRejected)) { _ = try vault.writer(slots: [slot, slot, slot]) }
    }
}
