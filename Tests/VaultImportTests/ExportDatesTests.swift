// VaultImport tests: item dates as RFC 3339 text and back.

import Testing

@testable import VaultImport

@Suite("ExportDates")
struct ExportDatesTests {
    @Test func format_writesMillisecondsInUTC() {
        #expect(ExportDates.format(1_767_225_600_123) == "2026-01-01T00:00:00.123Z")
    }

    @Test func format_zeroIsNoDate() {
        #expect(ExportDates.format(0) == nil)
    }

    @Test func parse_readsWhatFormatWrites() throws {
        for milliseconds: Int64 in [1, 1_767_225_600_123, 4_102_444_800_000] {
            #expect(try ExportDates.parse(ExportDates.format(milliseconds)) == milliseconds)
        }
        #expect(try ExportDates.parse("") == 0)
        #expect(throws: ImportProblem.self) { try ExportDates.parse("yesterday") }
    }
}
