// vault: what an app sees of the public surface: no name clash with Foundation, plumbing out of
// reach, one error type. Imports Foundation and VaultIO together, as most apps do.

import Foundation
import Testing
import VaultIO

/// Foundation's `ContiguousBytes`: this compiles only while no module re-exported by VaultIO
/// declares a protocol of that name (ours is `ReadableBytes`).
private func byteCount(_ bytes: some ContiguousBytes) -> Int { bytes.withUnsafeBytes { $0.count } }

@Suite("Public surface, as an app")
struct PublicSurfaceTests {
    @Test func foundationContiguousBytes_isUnambiguous() {
        #expect(byteCount(Data([1, 2, 3])) == 3)
        #expect(byteCount([UInt8](repeating: 0, count: 4)) == 4)
    }

    /// The codec and crypto plumbing is `package`; the checked-in API listing, which the
    /// outside-package run and scripts/api-check.sh keep honest, must not name it.
    @Test func apiListing_holdsNoPlumbing() throws {
        let listing = try packageFile("API/VaultFormat.txt") + packageFile("API/VaultIO.txt")
        let declared = Set(
            listing.split(separator: "\n").compactMap { line -> String? in
                let words = line.split(separator: " ")
                guard words.count >= 2, ["Struct", "Enum", "Class", "Protocol"].contains(words[0]) else { return nil }
                return String(words[1])
            }
        )
        for plumbing in [
            "ByteReader", "ByteWriter", "Padding", "RecordCodec", "SealedRecord", "KeyHierarchy", "VaultWriter",
            "XChaCha20Poly1305", "BLAKE2b", "Argon2id", "MasterKey", "BaseKey", "ClassKey", "KeyEncryptionKey",
            "Hex", "ContiguousBytes",
        ] {
            #expect(!declared.contains(plumbing), "\(plumbing) is public")
        }
        #expect(declared.contains("VaultSnapshot") && declared.contains("Keychain"))
    }

    @Test func vaultError_isTheOneTypeToCatch() throws {
        do throws(VaultError) {
            _ = try VaultError.catching {
                try Vault(
                    path: "/nonexistent/app.vault",
                    credentials: .password("x"),
                    configuration: .insecureForTesting()
                )
            }
            Issue.record("opened a vault that does not exist")
        } catch {
            #expect(error.ioCode == .system)
            #expect(error.errno == .noSuchFileOrDirectory)
            #expect(error.path == "/nonexistent/app.vault")
        }
    }
}
