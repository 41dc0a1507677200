// vault: the derivations of format 2.0 against the vectors of Spec/format-v2.md section 9.

import Testing

@_spi(Testing) @testable import VaultFormat

@Suite("Access-group key vectors (format 2.0)")
struct AccessGroupVectorTests {
    static let master = MasterKey(secret: SecretBytes(bytes: (0..<32).map { UInt8($0) }))

    private func hex(_ key: some ReadableBytes) -> String {
        key.withUnsafeBytes { Hex.encode($0) }
    }

    /// R2-KEY-1, R2-GRP-1: computed independently in Python.
    @Test func derivations_matchTheSpec() throws {
        let groupKey = KeyHierarchy.groupKey(1, master: Self.master)
        #expect(hex(groupKey) == "16317a0b27c7cd423fee02be0c229968609c23844cde4139ecf1f022897b14d9")
        #expect(
            hex(KeyHierarchy.groupNameKey(Self.master).secret)
                == "ca4b2522da6a8256e08837ac93f4f7cd75303e5fc5da97645823a1ce0533db50"
        )
        let keys = VaultKeys(
            master: Self.master,
            base: KeyHierarchy.baseKey(from: Self.master),
            deviceSecret: nil,
            vaultID: Array(repeating: 0, count: 16),
            groupDomains: [1]
        )
        let classKey = BLAKE2b.deriveKey(from: groupKey, id: 16, context: "VLTgrpcl")
        #expect(hex(classKey) == "e57a45d32dce07c0522de2e210d66e6805d244935a9bd804e7f6fbddf2a2158f")
        #expect(
            hex(try keys.recordKeys(for: .whenUnlocked, domain: 1).secret)
                == "d7e92c7f48b45a5bf6a0e7fceb12ff9fdbd978d69af4bd9dd60fb821f1748eea"
        )
        #expect(
            hex(BLAKE2b.deriveKey(from: groupKey, id: 18, context: "VLTgrpcl"))
                == "b75302b17f7ce742f9197b8ecd8a9f98843913329b1e93904b5822a6a00cacc0"
        )
    }

    /// R2-RCP-2: a limited stanza with the inputs of Spec/format-v1.2.md section 8, domain 1,
    /// computed independently in Python (Spec/format-v2.md section 9).
    @Test func limitedStanza_matchesTheSpecVector() throws {
        let identity = try RecipientIdentity(
            fileContents: Array("VAULT-IDENTITY-1:gIGCg4SFhoeIiYqLjI2Oj5CRkpOUlZaXmJmam5ydnp-5PmZ-".utf8)
        )
        let bytes = (0x60..<0x80).map { UInt8($0) } + (0xA0..<0xB8).map { UInt8($0) } + (0xC0..<0xD8).map { UInt8($0) }
        let vaultID = (0x40..<0x50).map { UInt8($0) }
        let stanza = try KeyHierarchy.makeLimitedRecipientStanza(
            for: Recipient(key: identity.recipient, name: "alice@laptop"),
            domain: 1,
            master: Self.master,
            vaultID: vaultID,
            random: FixedBytes(bytes)
        )
        #expect(
            Hex.encode(stanza.wrapped)
                == "d365369b28066599c77e13627b4cab2184a3e63c9660c79a96d94211bae68ca72592d84d2bd90d9eda0923b7fe445c8d"
                + "cae7bafa1e62be9bbe4bed19838df90407b4de60845279f3dca963778240c21f949d9420633258ea97e8438a9baab03e"
                + "b91ca0cb8d6a944f625271b3eb49bd2bb21f4310b286add60e4e4bfc822e034077f99dd92568caf8a3faec0dd63083c1"
        )
        #expect(stanza.encoded.count == RecipientStanza.limitedByteCount)
        #expect(
            Hex.encode(BLAKE2b.hash(stanza.encoded, length: 32))
                == "16593cf10ba3c2930d897d58031efcd5057df30e60b9f2726071c522bddbc067"
        )
        let opened = try #require(KeyHierarchy.openLimitedRecipientStanza(stanza, identity: identity, vaultID: vaultID))
        #expect(opened == KeyHierarchy.limitedKeys(domain: 1, master: Self.master))
    }
}

/// Hands out fixed bytes in order.
private final class FixedBytes: RandomSource, @unchecked Sendable {
    private var bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count <= bytes.count)
        buffer.copyBytes(from: bytes.prefix(buffer.count))
        bytes.removeFirst(buffer.count)
    }
}
