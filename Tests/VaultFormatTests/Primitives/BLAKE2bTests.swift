// vault: BLAKE2b against RFC 7693 and the BLAKE2 reference vectors; crypto_kdf derivation.

import Testing

@testable import VaultFormat

@Suite("BLAKE2b")
struct BLAKE2bTests {
    @Test func hash_abc_matchesRFC7693AppendixA() throws {
        let vector: BLAKE2bVector = try PublishedVectors.load("blake2b512_rfc7693_abc")
        #expect(vector.key.bytes.isEmpty)
        #expect(BLAKE2b.hash(vector.message.bytes, length: 64) == vector.digest.bytes)
    }

    @Test func keyedHash_emptyMessage_matchesReferenceKAT() throws {
        let vector: BLAKE2bVector = try PublishedVectors.load("blake2b512_keyed_kat_empty")
        #expect(vector.key.bytes == Array(0...63))
        #expect(BLAKE2b.hash(vector.message.bytes, key: vector.key.bytes, length: 64) == vector.digest.bytes)
        // A key in secret memory gives the same result.
        let key = SecretBytes(bytes: vector.key.bytes)
        #expect(BLAKE2b.hash(vector.message.bytes, key: key, length: 64) == vector.digest.bytes)
    }

    @Test func hash_ofParts_equalsHashOfConcatenation() {
        let message = Array(0...200).map { UInt8($0) }
        let whole = BLAKE2b.hash(message, key: [UInt8](repeating: 7, count: 32), length: 48)
        for split in [0, 1, 64, 128, 129, 200, 201] {
            let parts: [any ReadableBytes] = [Array(message[..<split]), Array(message[split...])]
            #expect(BLAKE2b.hash(parts, key: [UInt8](repeating: 7, count: 32), length: 48) == whole)
        }
    }

    @Test(arguments: [1, 8, 16, 32, 64])
    func hash_returnsTheRequestedLength(length: Int) {
        #expect(BLAKE2b.hash(Array("abc".utf8), length: length).count == length)
    }

    /// The digest length is a BLAKE2b parameter, so a shorter digest is not a prefix of a longer one.
    @Test func hash_shortDigestIsNotATruncation() {
        let long = BLAKE2b.hash(Array("abc".utf8), length: 64)
        let short = BLAKE2b.hash(Array("abc".utf8), length: 32)
        #expect(Array(long.prefix(32)) != short)
    }
}

/// `Derive(K, id, ctx)` (Spec "Primitives"), libsodium's `crypto_kdf_derive_from_key`.
@Suite("Key derivation")
struct KeyDerivationTests {
    private let parent = SecretBytes(bytes: Array(0..<32).map { UInt8($0) })

    @Test func deriveKey_sameInputs_giveSameKey() {
        let a = BLAKE2b.deriveKey(from: parent, id: 1, context: "VLTheadr")
        let b = BLAKE2b.deriveKey(from: SecretBytes(bytes: parent.copyBytes()), id: 1, context: "VLTheadr")
        #expect(a.count == 32)
        #expect(a == b)
    }

    @Test func deriveKey_differentIDs_giveDifferentKeys() {
        let ids: [UInt64] = [0, 1, 2, 3, 16, 17, 22, UInt64.max]
        let keys = ids.map { BLAKE2b.deriveKey(from: parent, id: $0, context: "VLTclass").copyBytes() }
        #expect(Set(keys).count == ids.count)
    }

    @Test func deriveKey_differentContexts_giveDifferentKeys() {
        let keys = [
            BLAKE2b.deriveKey(from: parent, id: 1, context: "VLTbase_"),
            BLAKE2b.deriveKey(from: parent, id: 1, context: "VLTheadr"),
            BLAKE2b.deriveKey(from: parent, id: 1, context: "VLTindex"),
            BLAKE2b.deriveKey(from: parent, id: 1, context: "VLTlookp"),
            BLAKE2b.deriveKey(from: parent, id: 1, context: "VLTclass"),
            BLAKE2b.deriveKey(from: parent, id: 1, context: "VLTattrs"),
            BLAKE2b.deriveKey(from: parent, id: 1, context: "VLTsecrt"),
        ].map { $0.copyBytes() }
        #expect(Set(keys).count == keys.count)
    }

    @Test func deriveKey_differentParents_giveDifferentKeys() {
        var other = parent.copyBytes()
        other[31] ^= 1
        #expect(
            BLAKE2b.deriveKey(from: parent, id: 2, context: "VLTindex")
                != BLAKE2b.deriveKey(from: SecretBytes(bytes: other), id: 2, context: "VLTindex")
        )
    }

    /// Derived subkeys are not the parent and not a plain keyed hash of the empty message.
    @Test func deriveKey_isNotTheParentOrAnUnsaltedKeyedHash() {
        let derived = BLAKE2b.deriveKey(from: parent, id: 0, context: "VLTbase_").copyBytes()
        #expect(derived != parent.copyBytes())
        #expect(derived != BLAKE2b.hash([UInt8](), key: parent, length: 32))
    }

    /// Spec "Key hierarchy": BK = Derive(MK, 1, "VLTbase_").
    @Test func baseKey_isDeriveOfMasterWithIDOneAndBaseContext() {
        let master = MasterKey(secret: parent)
        #expect(
            KeyHierarchy.baseKey(from: master).secret == BLAKE2b.deriveKey(from: parent, id: 1, context: "VLTbase_")
        )
    }
}
