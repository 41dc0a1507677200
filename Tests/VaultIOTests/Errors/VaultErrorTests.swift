// vault: one error type for app code, with structured fields.

import Foundation
import Testing

@testable import VaultIO

/// Spec: Spec/library-semantics.md, "Errors for app code" (L-ERR-1, L-ERR-2).
@Suite("VaultError")
struct VaultErrorTests {
    // L-ERR-1: the file's version is a field, not prose to parse.
    @Test func newerMajorVersion_givesFormatVersion() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/v.vault"
            _ = try Vault.create(at: path, credentials: .password("pw"), configuration: .insecureForTesting())
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            bytes[8] = 4  // major version, little-endian (4: unknown; 2 and 3 are formats 2.0 and 3)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            do throws(VaultError) {
                _ = try VaultError.catching {
                    try Vault(path: path, credentials: .password("pw"), configuration: .insecureForTesting())
                }
                Issue.record("a format 4 file opened")
            } catch {
                #expect(error.kind == .unsupportedVersion)
                #expect(error.formatCode == .unsupportedVersion)
                #expect(error.formatVersion?.major == 4)
                #expect(error.ioCode == nil)
            }
        }
    }

    // L-ERR-1: one switch over kind covers the three sources.
    @Test func sources_mapToOneKind() throws {
        #expect(VaultError(VaultFormatError(.wrongCredential)).kind == .wrongPassword)
        #expect(VaultError(VaultIOError(.lockTimeout)).kind == .lockTimeout)
        #expect(VaultError(KeychainError.itemNotFound).kind == .itemNotFound)
        let wrapped = VaultError(VaultError(VaultFormatError(.recordCorrupt, "x")))
        #expect(wrapped.formatCode == .recordCorrupt)
    }

    // L-ERR-1: VaultIO's step, path and errno come through as fields.
    @Test func ioError_keepsPathOperationAndErrno() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/missing.vault"
            let error = try #require(throws: VaultIOError.self) {
                try Vault(path: path, credentials: .password("pw"), configuration: .insecureForTesting())
            }
            let unified = VaultError(error)
            #expect(unified.ioCode == error.code)
            #expect(unified.path == error.path)
            #expect(unified.errno == .noSuchFileOrDirectory)
            #expect(unified.operation == error.operation)
            #expect(unified.formatVersion == nil)
            #expect(unified.description == error.description)
        }
    }
}
