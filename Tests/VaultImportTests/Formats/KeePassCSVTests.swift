// VaultImport tests: KeePassXC's CSV export (Spec/cli.md 7.3).

import Testing
import VaultIO

@testable import VaultImport

@Suite("KeePassXC CSV")
struct KeePassCSVTests {
    let header =
        "\"Group\",\"Title\",\"Username\",\"Password\",\"URL\",\"Notes\",\"TOTP\",\"Icon\",\"Last Modified\",\"Created\"\n"

    @Test func read_row_dropsTheRootGroupAndMapsTheLogin() throws {
        let batch = try read(
            .keepassCSV,
            header
                + "\"Root/Work\",\"GitHub\",\"alice\",\"pw, with comma\",\"https://github.com/login\",\"n\",\"otpauth://x\",\"0\",\"2024-01-02T00:00:00Z\",\"2024-01-01T00:00:00Z\"\n"
        )
        let entry = try #require(batch.entries.first)
        #expect(entry.name == "GitHub (Work)")
        #expect(entry.folder == "Work")
        #expect(entry.itemClass == .internetPassword)
        #expect(entry.attributes.server == "github.com")
        #expect(entry.attributes.path == "/login")
        #expect(entry.attributes.account == "alice")
        #expect(entry.attributes.itemDescription == "Work")
        #expect(entry.secretText == "pw, with comma")
        #expect(entry.attributes.creationDate == 1_704_067_200_000)
        #expect(entry.attributes.modificationDate == 1_704_153_600_000)
        #expect(batch.notes == ["GitHub (Work): TOTP not imported"])
    }

    @Test func read_recycleBinRow_isSkippedWithItsReason() throws {
        let batch = try read(
            .keepassCSV,
            header + "\"Root/Recycle Bin\",\"Old\",\"u\",\"p\",\"\",\"\",\"\",\"0\",\"\",\"\"\n"
        )
        #expect(batch.entries.isEmpty)
        #expect(batch.skipped == [ImportSkip(entry: "Old (Recycle Bin)", reason: .excluded("in the recycle bin"))])
    }

    @Test func read_rowWithoutURL_isAGenericPasswordNamedAfterItsTitle() throws {
        let batch = try read(.keepassCSV, header + "\"Root\",\"Wi-Fi\",\"\",\"p\",\"\",\"\",\"\",\"0\",\"\",\"\"\n")
        let entry = try #require(batch.entries.first)
        #expect(entry.itemClass == .genericPassword)
        #expect(entry.attributes.service == "Wi-Fi")
        #expect(entry.name == "Wi-Fi")
    }

    @Test func read_missingColumn_namesTheColumn() throws {
        let error = try #require(readError(.keepassCSV, "\"Group\",\"Title\",\"Username\",\"URL\",\"Notes\"\n"))
        #expect(error == ImportError(.missingField))
        #expect(error.field == "Password")
        #expect(error.reason == "no 'Password' column")
    }
}
