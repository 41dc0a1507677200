// vault: the derivations of format 2.0 against the vectors of Spec/format-v2.md section 9.

import Testing

@_spi(Testing) @testable import VaultFormat

@Suite("Access-group key vectors (format 2.0)")
struct AccessGroupVectorTests {
    static let master = MasterKey(secret: SecretBytes(bytes: (0..<32).map { UInt8($0) }))

    private func hex(_ key: some ContiguousBytes) -> String {
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
}
