// VaultImport tests: the generic JSON layout that `vaulttool export` writes (Spec/cli.md 7.5).

import Testing
import VaultIO

@testable import VaultImport

@Suite("Generic JSON")
struct GenericJSONTests {
    func layout(_ items: String...) -> String {
        #"{"format": "vault-items", "version": 1, "items": [\#(items.joined(separator: ","))]}"#
    }

    @Test func read_item_keepsEveryAttributeIDAndAccessibility() throws {
        let item = #"""
            {"id": "0123456789abcdef0123456789abcdef", "class": "internetPassword",
             "accessibility": "afterFirstUnlock", "server": "db.example", "protocol": "postgres", "port": 5432,
             "account": "app", "accessGroup": "deploy", "label": "DB", "generic": "AAE=",
             "created": "2024-01-01T00:00:00.250Z", "synchronizable": true,
             "preserved": [{"tag": 64, "value": "Zm9v"}], "secretBase64": "AP8="}
            """#
        let batch = try read(.json, layout(item))
        let entry = try #require(batch.entries.first)
        #expect(entry.name == "item 1 (db.example, app)")
        #expect(entry.id == ItemID(hex: "0123456789abcdef0123456789abcdef"))
        #expect(entry.itemClass == .internetPassword)
        #expect(entry.accessibility == .afterFirstUnlock)
        #expect(entry.attributes.port == 5432)
        #expect(entry.attributes.accessGroup == "deploy")
        #expect(entry.attributes.generic == [0, 1])
        #expect(entry.attributes.creationDate == 1_704_067_200_250)
        #expect(entry.attributes.synchronizable)
        #expect(entry.attributes.preserved == [PreservedAttribute(tag: 64, value: Array("foo".utf8))])
        #expect(entry.secret == [0x00, 0xFF])
    }

    @Test func read_itemsBreakingARule_areSkippedOneByOneWithoutTheirSecret() throws {
        let batch = try read(
            .json,
            layout(
                #"{"class": "certificate", "secret": "a"}"#,
                #"{"service": "s"}"#,
                #"{"service": "s", "secretBase64": "not base64 s3cret!"}"#,
                #"{"service": "s", "server": "h", "secret": "a"}"#,
                #"{"id": "xyz", "service": "t", "secret": "a"}"#,
                #"{"service": "ok", "account": "a", "secret": "fine"}"#
            )
        )
        #expect(batch.entries.map(\.name) == ["item 6 (ok, a)"])
        #expect(
            batch.skipped == [
                ImportSkip(entry: "item 1", reason: .invalid("unknown class 'certificate'")),
                ImportSkip(entry: "item 2", reason: .invalid("no secret")),
                ImportSkip(entry: "item 3", reason: .invalid("secretBase64 is not base64")),
                ImportSkip(entry: "item 4", reason: .invalid("a generic password with internet attributes")),
                ImportSkip(entry: "item 5", reason: .invalid("id is not 32 hex digits")),
            ]
        )
    }

    @Test func read_otherFormatOrVersion_isAnUnsupportedLayout() throws {
        let other = try #require(readError(.json, #"{"format": "other", "items": []}"#))
        #expect(other == ImportError(.unsupportedLayout))
        #expect(other.field == "format")
        let newer = try #require(readError(.json, #"{"version": 2, "items": []}"#))
        #expect(newer == ImportError(.unsupportedLayout))
        #expect(newer.reason == "layout version 2 needs a newer vaulttool")
    }

    @Test func read_missingItems_namesTheKey() throws {
        let error = try #require(readError(.json, #"{"format": "vault-items"}"#))
        #expect(error == ImportError(.missingField))
        #expect(error.field == "items")
    }
}
