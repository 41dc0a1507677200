// vault: SecretBytes, key types and the constant-time comparison.

import Testing

@testable import VaultFormat

@Suite("SecretBytes")
struct SecretBytesTests {
    private let bytes: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF, 0x41, 0x42, 0x43, 0x31, 0x32, 0x33]

    @Test func description_neverShowsTheBytes() {
        let secret = SecretBytes(bytes: bytes)
        let renderings = [
            secret.description, secret.debugDescription, "\(secret)", String(describing: secret),
            String(reflecting: secret), String(describing: [secret]),
        ]
        for text in renderings {
            #expect(text == "SecretBytes(10 bytes)" || text == "[SecretBytes(10 bytes)]")
            #expect(!text.lowercased().contains("dead"))
            #expect(!text.contains("ABC123"))
            #expect(!text.contains("222"))  // 0xDE in decimal
        }
    }

    @Test func keyDescriptions_areRedacted() {
        let master = MasterKey(secret: SecretBytes(bytes: [UInt8](repeating: 0xAB, count: 32)))
        #expect(master.description == "MasterKey(redacted)")
        #expect("\(DeviceSecret(secret: master.secret))" == "DeviceSecret(redacted)")
        #expect(!String(describing: master).lowercased().contains("abab"))
    }

    @Test func equality_comparesContents() throws {
        #expect(SecretBytes(bytes: bytes) == SecretBytes(bytes: bytes))
        var last = bytes
        last[9] ^= 1
        #expect(SecretBytes(bytes: bytes) != SecretBytes(bytes: last))
        var first = bytes
        first[0] ^= 0x80
        #expect(SecretBytes(bytes: bytes) != SecretBytes(bytes: first))
        #expect(SecretBytes(bytes: bytes) != SecretBytes(bytes: Array(bytes.dropLast())))
        // `SecretBytes(count:)` needs `try` here: its defaulted initializer closure makes the call `rethrows`.
        #expect(try SecretBytes(bytes: [UInt8]()) == SecretBytes(count: 0))
        #expect(SecretBytes(count: 0) != SecretBytes(count: 1))
    }

    @Test func copyBytes_returnsWhatWasStored() throws {
        #expect(SecretBytes(bytes: bytes).copyBytes() == bytes)
        #expect(SecretBytes(utf8: "pässwörd 🔑").copyBytes() == Array("pässwörd 🔑".utf8))
        #expect(SecretBytes(count: 5).copyBytes() == [0, 0, 0, 0, 0])
        #expect(SecretBytes(count: 0).copyBytes() == [])
    }

    @Test func randomSecrets_differ() {
        let samples = (0..<8).map { _ in SecretBytes.random(count: 32).copyBytes() }
        #expect(Set(samples).count == samples.count)
        #expect(MasterKey.random().secret != MasterKey.random().secret)
        let a: MasterKey = SystemRandom().key()
        let b: MasterKey = SystemRandom().key()
        #expect(a.secret.count == MasterKey.byteCount)
        #expect(a.secret != b.secret)
        #expect(SystemRandom().bytes(24) != SystemRandom().bytes(24))
    }
}

@Suite("Constant-time comparison")
struct ConstantTimeEqualTests {
    @Test func equalBuffers_compareEqual() {
        #expect(Sodium.constantTimeEqual([UInt8](repeating: 9, count: 64), [UInt8](repeating: 9, count: 64)))
        #expect(Sodium.constantTimeEqual([UInt8](), [UInt8]()))
        let array: [UInt8] = [1, 2, 3, 4]
        #expect(Sodium.constantTimeEqual(array, array[...]))
    }

    @Test(arguments: 0..<32)
    func buffersDifferingInOneByte_compareUnequal(index: Int) {
        let a = [UInt8](repeating: 0x5A, count: 32)
        var b = a
        b[index] ^= 0x01
        #expect(!Sodium.constantTimeEqual(a, b))
    }

    @Test func buffersOfDifferentLength_compareUnequal() {
        #expect(!Sodium.constantTimeEqual([UInt8](repeating: 0, count: 32), [UInt8](repeating: 0, count: 31)))
        #expect(!Sodium.constantTimeEqual([UInt8](), [0]))
    }
}
