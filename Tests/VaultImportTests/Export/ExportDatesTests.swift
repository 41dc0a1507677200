// VaultImport tests: item dates read back from RFC 3339 text.

import Testing
import VaultIO

@testable import VaultImport

@Suite("ExportDates")
struct ExportDatesTests {
    @Test func parse_readsWhatTheLayoutWrites() throws {
        for milliseconds: Int64 in [1, 1_767_225_600_123, 4_102_444_800_000] {
            #expect(try ExportDates.parse(RFC3339.itemDate(milliseconds)) == milliseconds)
        }
        #expect(try ExportDates.parse("") == 0)
        #expect(try ExportDates.parse("2026-01-01T00:00:00Z") == 1_767_225_600_000)
        #expect(throws: ImportProblem.self) { try ExportDates.parse("yesterday") }
    }
}
