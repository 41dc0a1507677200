// vault: the derivations of format 2.0 against the vectors of Spec/format-v2.md section 9.

import Testing

@testable import VaultFormat

@Suite("Access-group key vectors (format 2.0)")
struct AccessGroupVectorTests {
    static let master = MasterKey(secret: SecretBytes(bytes: (0..<32).map { UInt8($0) }))

    private func hex(_ key: some ReadableBytes) -> String {
        key.withUnsafeBytes { Hex.encode($0) }
    }

    /// R2-KEY-1, R2-GRP-1: computed independently in Python.
    @Test func derivations_matchTheSpec() throws {
        let groupKey = KeyHierarchy.groupKey(1, name: "billing", master: Self.master)
        #expect(hex(groupKey) == "e4f41ad977dd96410691693bc9a0719da90ba8df0d70ffdaeac6074540b241ca")
        #expect(
            hex(KeyHierarchy.groupKey(1, name: "deploy", master: Self.master))
                == "a691597202d3d0b96412950451bfe5c3cc21bcf53c01764e06de03a854088f26"
        )
        #expect(
            hex(KeyHierarchy.groupNameKey(Self.master).secret)
                == "ca4b2522da6a8256e08837ac93f4f7cd75303e5fc5da97645823a1ce0533db50"
        )
        let keys = VaultKeys(
            master: Self.master,
            base: KeyHierarchy.baseKey(from: Self.master),
            deviceSecret: nil,
            vaultID: Array(repeating: 0, count: 16),
            groups: [1: "billing"]
        )
        let classKey = BLAKE2b.deriveKey(from: groupKey, id: 16, context: "VLTgrpcl")
        #expect(hex(classKey) == "594ea130aa9079602f51c86edca1a0e1d57c66e55c85a82d922af173790fd5d0")
        #expect(
            hex(try keys.recordKeys(for: .whenUnlocked, domain: 1).secret)
                == "0c3f75c31d7aa768212fb1058b60bf7023f0e6f65781148ab5cc8f0f793fb8b5"
        )
        #expect(
            hex(BLAKE2b.deriveKey(from: groupKey, id: 18, context: "VLTgrpcl"))
                == "7d0d1ce6c5ca74f1b9bd302065dfd078a3c498325b16f7a9ec61bf7fd0c86a4d"
        )
    }

    /// R2-RCP-2: a limited stanza with the inputs of Spec/format-v1.2.md section 8, domain 1 of
    /// group `billing`, computed independently in Python (Spec/format-v2.md section 9).
    @Test func limitedStanza_matchesTheSpecVector() throws {
        let identity = try RecipientIdentity(
            fileContents: Array("VAULT-IDENTITY-1:gIGCg4SFhoeIiYqLjI2Oj5CRkpOUlZaXmJmam5ydnp-5PmZ-".utf8)
        )
        let bytes = (0x60..<0x80).map { UInt8($0) } + (0xA0..<0xB8).map { UInt8($0) } + (0xC0..<0xD8).map { UInt8($0) }
        let vaultID = (0x40..<0x50).map { UInt8($0) }
        let stanza = try KeyHierarchy.makeLimitedRecipientStanza(
            for: Recipient(key: identity.recipient, name: "alice@laptop"),
            domain: 1,
            accessGroup: "billing",
            master: Self.master,
            vaultID: vaultID,
            random: FixedRandom(bytes)
        )
        #expect(
            Hex.encode(stanza.wrapped)
                == "d365369b28066599c77e13627b4cab2184a3e63c9660c79a96d94211bae68ca72592d84d2bd90d9eda0923b7fe445c8d"
                + "cae7bafa1e62be9bbe4bed19838df90407b4de60845279f3dca963778240c21f949d9420633258ea97e8438a9baab03e"
                + "4bd9c019dd70cf4c5b2d1a362ecb55de7b88c84bf32813350879bc9b4be75653fb7ae0858b1750dce4b4fa998c9a5eaf"
        )
        #expect(stanza.encoded.count == RecipientStanza.limitedByteCount)
        #expect(
            Hex.encode(BLAKE2b.hash(stanza.encoded, length: 32))
                == "b3afef60a7dfb8d50cb285f79f4634d1e75513b89cb6d9766ee6d1754f6659e1"
        )
        let opened = try #require(KeyHierarchy.openLimitedRecipientStanza(stanza, identity: identity, vaultID: vaultID))
        #expect(opened == KeyHierarchy.limitedKeys(domain: 1, name: "billing", master: Self.master))
    }
}
