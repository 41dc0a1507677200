// vault: the stanzas of one key are one recipient (R12-RCP-7).

import Testing
import VaultFormat
import VaultIO

@Suite("RecipientEntry")
struct RecipientEntryTests {
    private let a = RecipientIdentity.generate().recipient
    private let b = RecipientIdentity.generate().recipient

    @Test func merging_keepsEachKeyOnceWithItsBroadestAccess() {
        let stanzas = [
            Recipient(key: a, name: "ci"), Recipient(key: b, name: "bob"), Recipient(key: a, name: "ci again"),
        ]
        let entries = RecipientEntry.merging(stanzas, groups: ["deploy", nil, nil])
        #expect(entries.map(\.recipient.name) == ["ci", "bob"])
        #expect(entries.map(\.stanzaCount) == [2, 1])
        #expect(entries[0].accessGroup == nil)
    }

    @Test func merging_limitedStanzasStayLimited() {
        let entries = RecipientEntry.merging([Recipient(key: a, name: "ci")], groups: ["deploy"])
        #expect(entries[0].accessGroup == "deploy")
    }

    @Test func matching_byKeyElseByName() {
        let stanzas = [Recipient(key: a, name: "ci"), Recipient(key: a, name: "ci"), Recipient(key: b, name: "ci")]
        #expect(RecipientEntry.matching(stanzas, key: a, name: nil).count == 1)
        #expect(RecipientEntry.matching(stanzas, key: nil, name: "ci").count == 2)
    }
}
