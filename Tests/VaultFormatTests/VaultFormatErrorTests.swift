// vault: an unsupported version is reported as a structured field, not only as prose.

import Testing

@testable import VaultFormat

/// Spec: Spec/library-semantics.md, "Errors for app code" (L-ERR-1).
@Suite("Format version in errors")
struct FormatVersionErrorTests {
    private let vault = TestVault(seed: "format-version-error")

    // R-HDR-2
    @Test(arguments: [UInt16(0), 3, 0xFFFF])
    func otherMajor_errorCarriesTheFileVersion(major: UInt16) throws {
        var header = try EditableHeader(try vault.file(items: [vault.draft(service: "mail")]))
        header.major = major
        header.minor = 7
        let error = try #require(throws: VaultFormatError.self) { try TestVault.open(header.file()) }
        #expect(error.code == .unsupportedVersion)
        #expect(error.formatVersion == FormatVersion(major: major, minor: 7))
    }

    // R-HDR-3
    @Test func newerMinor_writerErrorCarriesTheFileVersion() throws {
        var header = try EditableHeader(try vault.file(items: [vault.draft(service: "mail")]))
        header.minor = VaultHeader.currentMinor + 1
        let snapshot = try TestVault.open(try header.resealedFile(keys: vault.keys))
        let error = try #require(throws: VaultFormatError.self) { try VaultWriter(updating: snapshot) }
        #expect(error.formatVersion == FormatVersion(major: 1, minor: VaultHeader.currentMinor + 1))
        #expect(error.formatVersion?.description == "1.\(VaultHeader.currentMinor + 1)")
    }

    @Test func otherErrors_carryNoVersion() {
        #expect(VaultFormatError(.structure, "x").formatVersion == nil)
    }
}
