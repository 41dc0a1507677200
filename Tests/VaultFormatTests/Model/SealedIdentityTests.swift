// vault: identity files sealed under a passphrase (Spec/format-v1.2.md R12-TXT-3).

import Testing

@testable import VaultFormat

@Suite("Sealed identity files (R12-TXT-3)")
struct SealedIdentityTests {
    static let kdf = KDFParameters(memoryKiB: 19_456, iterations: 2, lanes: 1)
    static let passphrase = SecretBytes(utf8: "correct horse battery staple")
    /// `r` = 0x01 ... 0x20, salt = 0x40 ... 0x4f, nonce = 0x50 ... 0x67.
    static let secret = SecretBytes(bytes: (1...32).map { UInt8($0) })
    static let random = Array(0x40...0x4F).map(UInt8.init) + Array(0x50...0x67).map(UInt8.init)

    /// The vector of Spec/format-v1.2.md R12-TXT-3.
    @Test func vector() throws {
        let line = try SealedIdentity.seal(
            Self.secret,
            passphrase: Self.passphrase,
            kdf: Self.kdf,
            random: FixedRandom(Self.random)
        )
        #expect(String(decoding: line, as: UTF8.self) == Self.vectorLine)
        let opened = try #require(try SealedIdentity.open(line, passphrase: Self.passphrase))
        #expect(opened == Self.secret)
    }

    static let vectorLine =
        "VAULT-IDENTITY-SEALED-1:AQBMAAACAAAAAQAAAEBBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmcI9SuOgn8UR0NuhJZAZb8Fzs7_eXVacpVr2u25uB_maHMECcRAHNXaHEbfS5uqEKQ"

    @Test func identityFile_roundTrips_andNeedsThePassphrase() throws {
        let identity = RecipientIdentity.generate()
        let contents = try identity.sealedFileContents(passphrase: Self.passphrase, kdf: Self.kdf)
        #expect(RecipientIdentity.isSealed(fileContents: contents))
        #expect(!RecipientIdentity.isSealed(fileContents: identity.fileContents))
        let read = try RecipientIdentity(fileContents: contents, passphrase: Self.passphrase)
        #expect(read.recipient == identity.recipient)
        // The secret is nowhere in the file in clear.
        #expect(!String(decoding: contents.copyBytes(), as: UTF8.self).contains(RecipientIdentity.textPrefix))
        #expect(throws: VaultFormatError(.keyUnavailable)) { try RecipientIdentity(fileContents: contents) }
        #expect(throws: VaultFormatError(.wrongCredential)) {
            try RecipientIdentity(fileContents: contents, passphrase: SecretBytes(utf8: "wrong"))
        }
        // NFC: a decomposed spelling of the same passphrase opens it.
        let composed = SecretBytes(utf8: "caf\u{E9}")
        let decomposed = SecretBytes(utf8: "cafe\u{301}")
        let accented = try identity.sealedFileContents(passphrase: composed, kdf: Self.kdf)
        #expect(try RecipientIdentity(fileContents: accented, passphrase: decomposed).recipient == identity.recipient)
    }

    @Test func damagedOrCostlyLines_areRefusedBeforeAnyArgon2() throws {
        let identity = RecipientIdentity.generate()
        var text = try identity.sealedFileContents(passphrase: Self.passphrase, kdf: Self.kdf).copyBytes()
        let lineStart = text.lastIndex(of: 0x0A, before: text.count - 1)! + 1
        // A flipped character of the sealed part: the AEAD fails, as for a wrong passphrase.
        text[text.count - 5] = text[text.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: VaultFormatError(.wrongCredential)) {
            try RecipientIdentity(fileContents: text, passphrase: Self.passphrase)
        }
        // Memory past the reading ceiling (R-KS-2) is refused before Argon2 runs.
        let line = Array(text[lineStart..<(text.count - 1)])
        var payload = Base64URL.decode(line[SealedIdentity.prefix.utf8.count...], maximumByteCount: 101)!
        payload[1...4] = [0xFF, 0xFF, 0xFF, 0x7F]
        let costly = Array(SealedIdentity.prefix.utf8) + Base64URL.encode(payload)
        #expect(throws: VaultFormatError.self) { try SealedIdentity.open(costly, passphrase: Self.passphrase) }
    }
}

extension Array where Element == UInt8 {
    fileprivate func lastIndex(of byte: UInt8, before end: Int) -> Int? {
        self[..<end].lastIndex(of: byte)
    }
}
