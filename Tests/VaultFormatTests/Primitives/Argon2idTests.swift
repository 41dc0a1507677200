// vault: Argon2id against published vectors.

import Testing
import VaultFormat

@Suite("Argon2id")
struct Argon2idTests {
    private func derive(_ vector: Argon2idVector) throws -> [UInt8] {
        try Argon2id.deriveKey(
            password: vector.password.bytes,
            salt: vector.salt.bytes,
            parameters: KDFParameters(memoryKiB: vector.memoryKiB, iterations: vector.iterations, lanes: vector.lanes),
            length: vector.tag.bytes.count,
            secret: vector.secret.bytes,
            associatedData: vector.associatedData.bytes
        ).copyBytes()
    }

    /// RFC 9106 section 5.3 uses a secret and associated data, which the vault format does not.
    @Test func deriveKey_withSecretAndAssociatedData_matchesRFC9106Section5_3() throws {
        let vector: Argon2idVector = try PublishedVectors.load("argon2id_rfc9106_5_3")
        #expect(try derive(vector) == vector.tag.bytes)
    }

    /// The path the format uses (Spec "Primitives": no secret, no associated data),
    /// checked against the reference implementation's Argon2id v0x13 vectors.
    @Test(arguments: ["argon2id_reference_m256_t2_p1", "argon2id_reference_m256_t2_p2"])
    func deriveKey_withoutSecret_matchesReferenceImplementation(name: String) throws {
        let vector: Argon2idVector = try PublishedVectors.load(name)
        #expect(vector.secret.bytes.isEmpty && vector.associatedData.bytes.isEmpty)
        let key = try Argon2id.deriveKey(
            password: vector.password.bytes,
            salt: vector.salt.bytes,
            parameters: KDFParameters(memoryKiB: vector.memoryKiB, iterations: vector.iterations, lanes: vector.lanes)
        )
        #expect(key.copyBytes() == vector.tag.bytes)
    }

    @Test func deriveKey_withDifferentSecretOrAssociatedData_givesDifferentTag() throws {
        let vector: Argon2idVector = try PublishedVectors.load("argon2id_rfc9106_5_3")
        let parameters = KDFParameters(memoryKiB: vector.memoryKiB, iterations: vector.iterations, lanes: vector.lanes)
        let withoutSecret = try Argon2id.deriveKey(
            password: vector.password.bytes,
            salt: vector.salt.bytes,
            parameters: parameters,
            associatedData: vector.associatedData.bytes
        )
        let withoutAD = try Argon2id.deriveKey(
            password: vector.password.bytes,
            salt: vector.salt.bytes,
            parameters: parameters,
            secret: vector.secret.bytes
        )
        #expect(withoutSecret.copyBytes() != vector.tag.bytes)
        #expect(withoutAD.copyBytes() != vector.tag.bytes)
        #expect(withoutSecret != withoutAD)
    }

    @Test func deriveKey_withSaltShorterThanEightBytes_throwsCryptoFailure() {
        #expect(throws: VaultFormatError(.cryptoFailure)) {
            try Argon2id.deriveKey(
                password: Array("pw".utf8),
                salt: [UInt8](repeating: 1, count: 7),
                parameters: KDFParameters(memoryKiB: 64, iterations: 1, lanes: 1)
            )
        }
    }
}
