import Testing
import VaultFormat

@Suite("Smoke") struct SmokeTests {
    @Test func roundTrip() throws {
        let random = SeededRandom(seed: "smoke")
        let master: MasterKey = random.key()
        let vaultID = random.bytes(16)
        let keys = KeyHierarchy.keys(master: master, deviceSecret: nil, vaultID: vaultID)
        let slot = try KeyHierarchy.makeKeyslot(
            kind: .password,
            wrapping: master.secret,
            scope: .masterKey,
            credentials: .password("pw"),
            kdf: KDFParameters(memoryKiB: 64, iterations: 1, lanes: 1),
            vaultID: vaultID,
            random: random,
            allowWeak: true
        )
        var writer = try VaultWriter(vaultID: vaultID, created: 1, keyslots: [slot], keys: keys)
        try writer.put(
            ItemDraft(
                id: ItemID(random: random),
                attributes: ItemAttributes(service: "s", account: "a"),
                secret: SecretBytes(utf8: "hunter2")
            ),
            random: random
        )
        let file = try writer.encode(now: 2, random: random)
        let snap = try VaultSnapshot.open(file, with: .password("pw"))
        let pos = try #require(
            try snap.position(
                of: PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes(service: "s", account: "a"))
            )
        )
        #expect(try snap.secret(at: pos).copyBytes() == Array("hunter2".utf8))
        #expect(throws: VaultFormatError(.wrongCredential)) { try VaultSnapshot.open(file, with: .password("nope")) }
    }
}
