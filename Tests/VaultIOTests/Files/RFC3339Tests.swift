// vault: the hand-written RFC 3339 formatter.

import Testing
import VaultIO

@Suite("RFC3339")
struct RFC3339Tests {
    @Test func format_writesUTCWithOrWithoutMilliseconds() {
        #expect(RFC3339.format(1_767_225_600_123, fractionalSeconds: false) == "2026-01-01T00:00:00Z")
        #expect(RFC3339.format(1_767_225_600_123, fractionalSeconds: true) == "2026-01-01T00:00:00.123Z")
        #expect(RFC3339.format(-1, fractionalSeconds: true) == "1969-12-31T23:59:59.999Z")
        #expect(RFC3339.format(253_402_300_800_000, fractionalSeconds: false) == "10000-01-01T00:00:00Z")
    }

    @Test func itemDate_zeroIsNoDate() {
        #expect(RFC3339.itemDate(0) == nil)
        #expect(RFC3339.itemDate(1_767_225_600_123) == "2026-01-01T00:00:00.123Z")
    }
}
