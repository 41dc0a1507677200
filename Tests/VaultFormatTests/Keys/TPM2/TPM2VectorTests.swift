// vault: the parts of a TPM2 keyslot that involve no TPM (Spec/tpm2.md §3 and §4).

import Testing
import VaultFormat

private struct TPM2Vector: Decodable {
    let source: String
    let S: HexBytes
    let salt: HexBytes
    let kek: HexBytes
    let pin: String
    let authValue: HexBytes
    let pinAngstromSign: String
    let pinComposed: String
    let authValueComposed: HexBytes
    let bindingEncoding: HexBytes
}

@Suite("TPM2 keyslot vectors")
struct TPM2VectorTests {
    private let vector: TPM2Vector

    init() throws { vector = try PublishedVectors.load("tpm2") }

    private var binding: TPM2Binding {
        TPM2Binding(
            slotSalt: vector.salt.bytes,
            sealed: TPM2SealedObject(requiresPIN: true, pcrMask: 1 << 7, publicArea: [0, 0], privateArea: [0, 0])
        )
    }

    @Test func thePINBecomesTheAuthValue_inNFC() {
        #expect(TPM2SealedObject.authValue(pin: SecretBytes(utf8: vector.pin)).copyBytes() == vector.authValue.bytes)
        let sign = TPM2SealedObject.authValue(pin: SecretBytes(utf8: vector.pinAngstromSign))
        let letter = TPM2SealedObject.authValue(pin: SecretBytes(utf8: vector.pinComposed))
        #expect(sign.copyBytes() == vector.authValueComposed.bytes)
        #expect(letter.copyBytes() == vector.authValueComposed.bytes)
    }

    @Test func theUnsealedKeyFileOpensExactlyTheKeyslotItsBindingNames() throws {
        // A kind 2 slot wrapping a master key under the KEK of the vector; only the right KEK opens it.
        let vaultID = [UInt8](repeating: 7, count: 16)
        let nonce = [UInt8](repeating: 9, count: 24)
        let master = [UInt8](repeating: 0x42, count: 32)
        let associatedData = Array("VLT1slot".utf8) + vaultID + [2, 0] + vector.salt.bytes
        let wrapped = XChaCha20Poly1305.seal(
            master,
            using: KeyEncryptionKey(secret: SecretBytes(bytes: vector.kek.bytes)),
            nonce: nonce,
            authenticating: associatedData
        )
        let slot = try Keyslot.decode(([2, 0] + vector.salt.bytes + nonce + wrapped)[...])
        var credentials = Credentials()
        credentials.unsealedKeyFiles[vector.salt.bytes] = KeyFileDigest(contents: SecretBytes(bytes: vector.S.bytes))
        let opened = try KeyHierarchy.keyEncryptionKey(
            opening: slot,
            with: credentials,
            vaultID: vaultID,
            normalizingPassword: true
        )
        #expect(opened?.secret.copyBytes() == vector.kek.bytes)
        // The same key file under another slot's salt does not reach this slot.
        var elsewhere = Credentials()
        elsewhere.unsealedKeyFiles[[UInt8](repeating: 1, count: 32)] = KeyFileDigest(
            contents: SecretBytes(bytes: vector.S.bytes)
        )
        #expect(
            try KeyHierarchy.keyEncryptionKey(
                opening: slot,
                with: elsewhere,
                vaultID: vaultID,
                normalizingPassword: true
            ) == nil
        )
    }

    @Test func theBindingEncodesAsTheSpecSays_andDecodesBack() {
        #expect(binding.encoded == vector.bindingEncoding.bytes)
        #expect(TPM2Binding.decode(vector.bindingEncoding.bytes) == binding)
        #expect(binding.sealed.pcrs == [7])
    }

    /// R-TPM-1: a field that breaks the table is not a binding (it stays an unknown field).
    @Test(arguments: [
        (0, UInt8(2)),  // another format
        (33, UInt8(3)),  // an unknown flag bit
        (34, UInt8(0x24)),  // another parent
        (36, UInt8(0)),  // a bank that does not match the mask
        (41, UInt8(1)),  // PCR bit 24 and above
        (42, UInt8(0)),  // an empty public area
    ])
    func aFieldThatBreaksTheTableIsNoBinding(offset: Int, value: UInt8) {
        var bytes = vector.bindingEncoding.bytes
        bytes[offset] = value
        #expect(TPM2Binding.decode(bytes) == nil)
        #expect(TPM2Binding.decode(vector.bindingEncoding.bytes + [0]) == nil)
        #expect(TPM2Binding.decode(Array(vector.bindingEncoding.bytes.dropLast())) == nil)
    }
}
