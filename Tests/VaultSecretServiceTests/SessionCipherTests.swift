// The DH session of Spec/secret-service.md §4, against the vector there (computed with Python's
// big integers and hmac, an implementation independent of ours).

import Testing
import VaultIO

@testable import VaultSecretService

private func bytes(_ hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var chars = hex.filter { !$0.isWhitespace }.makeIterator()
    while let a = chars.next(), let b = chars.next() { out.append(UInt8(String([a, b]), radix: 16)!) }
    return out
}

private let peer = bytes(
    """
    2da35d673ba3f466fd9d0f75f711dedb2c9e25e0fab3f2e7783dd49d7f71d5f8bd677faeb7a0490ec6345e65281e35a5\
    c6d94be0c23a3c87e2ad093a9e231004de7e0fb1ba58586017db95d6562b05fa6951f108c4d77a0fbf1e3c83e9503804\
    c31aaf032ee340f2f59bf3b5c5b2f26129e5bde26cbdc311e897a6dd1d341812
    """
)
private let exponent = (1...128).map { UInt8($0) }

@Suite struct SessionCipherTests {
    @Test func leadingZeroSharedSecretGivesTheVectorKey() throws {
        let cipher = try SessionCipher(exponent: exponent, peer: peer)
        #expect(cipher.sessionKey == bytes("6c09010c655153a584c64ebd66219b56"))
        #expect(cipher.publicValue.count == 128)
    }

    @Test func peerWithLeadingZeroBytesIsTheSameValue() throws {
        let cipher = try SessionCipher(exponent: exponent, peer: [0, 0] + peer)
        #expect(cipher.sessionKey == bytes("6c09010c655153a584c64ebd66219b56"))
    }

    @Test func bothSidesAgreeAndSecretsRoundTrip() throws {
        let client = SessionCipherTests.randomExponent()
        let clientSide = try SessionCipher(exponent: client, peer: [2])
        let server = try SessionCipher(peer: clientSide.publicValue)
        let back = try SessionCipher(exponent: client, peer: server.publicValue)
        #expect(back.sessionKey == server.sessionKey)
        for size in [0, 1, 15, 16, 17, 100_000] {
            let secret = SecretBytes(bytes: (0..<size).map { UInt8($0 % 251) })
            let (iv, value) = try server.encrypt(secret)
            #expect(iv.count == 16 && value.count % 16 == 0 && value.count > size)
            #expect(try back.decrypt(parameters: iv, value: value) == secret)
        }
    }

    @Test(arguments: [[UInt8](), [1], [0, 0, 1]])
    func valuesOutsideTheGroupAreRefused(_ value: [UInt8]) {
        #expect(throws: BusError.self) { try SessionCipher(peer: value) }
    }

    @Test func pMinusOneIsRefused() throws {
        var pMinusOne = bytes(
            "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
                + "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
                + "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF"
        )
        pMinusOne[127] -= 1
        #expect(throws: BusError.self) { try SessionCipher(peer: pMinusOne) }
    }

    @Test func malformedCiphertextsAreRefusedAlike() throws {
        let a = try SessionCipher(peer: try SessionCipher(exponent: exponent, peer: [2]).publicValue)
        let (iv, value) = try a.encrypt(SecretBytes(utf8: "hunter2"))
        var flipped = value
        flipped[flipped.count - 1] ^= 1
        let cases: [([UInt8], [UInt8])] = [(Array(iv.prefix(15)), value), (iv, []), (iv, Array(value.prefix(15)))]
        for (p, v) in cases {
            #expect(throws: BusError.invalidArgs("the encrypted secret is malformed")) {
                try a.decrypt(parameters: p, value: v)
            }
        }
        // A corrupted last block usually breaks the padding; when it does not, the bytes differ.
        if let wrong = try? a.decrypt(parameters: iv, value: flipped) { #expect(wrong != SecretBytes(utf8: "hunter2")) }
    }

    @Test func plainSessionsPassSecretsAsTheyAre() throws {
        let plain = SessionCipher()
        let (p, v) = try plain.encrypt(SecretBytes(utf8: "pw"))
        #expect(p.isEmpty && v == Array("pw".utf8))
        #expect(throws: BusError.self) { try plain.decrypt(parameters: [1], value: v) }
    }

    static func randomExponent() -> [UInt8] { SecretBytes.random(count: 128).copyBytes() }
}
