// VaultImport tests: Bitwarden's unencrypted JSON export (Spec/cli.md 7.4).

import Testing
import VaultIO

@testable import VaultImport

@Suite("Bitwarden JSON")
struct BitwardenJSONTests {
    func export(_ items: String, folders: String = #"[{"id": "f1", "name": "Work"}]"#) -> String {
        #"{"encrypted": false, "folders": \#(folders), "items": [\#(items)]}"#
    }

    @Test func read_login_mapsTheFirstURIAndKeepsTextAndBooleanFields() throws {
        let login = #"""
            {"id": "1", "folderId": "f1", "type": 1, "name": "GitLab", "notes": "n",
             "creationDate": "2024-01-01T00:00:00.000Z", "revisionDate": "2024-01-02T00:00:00.000Z",
             "login": {"username": "bob", "password": "gl-pw", "totp": "otpauth://t",
                       "uris": [{"uri": "https://gitlab.com/users/sign_in"}, {"uri": "https://gitlab.example"}]},
             "fields": [{"name": "team", "value": "infra", "type": 0}, {"name": "admin", "value": "true", "type": 2},
                        {"name": "pin", "value": "hidden-s3cret", "type": 1}, {"name": "ref", "value": null, "type": 3}]}
            """#
        let batch = try read(.bitwardenJSON, export(login))
        let entry = try #require(batch.entries.first)
        #expect(entry.name == "GitLab (Work)")
        #expect(entry.itemClass == .internetPassword)
        #expect(entry.attributes.server == "gitlab.com")
        #expect(entry.attributes.path == "/users/sign_in")
        #expect(entry.attributes.account == "bob")
        #expect(entry.attributes.itemDescription == "Work")
        #expect(entry.secretText == "gl-pw")
        #expect(entry.attributes.creationDate == 1_704_067_200_000)
        #expect(entry.attributes.modificationDate == 1_704_153_600_000)
        #expect(String(decoding: entry.attributes.generic, as: UTF8.self) == #"{"admin":"true","team":"infra"}"#)
        #expect(
            batch.notes == [
                "GitLab (Work): only the first of 2 URIs kept", "GitLab (Work): TOTP not imported",
                "GitLab (Work): hidden field 'pin' not imported", "GitLab (Work): linked field 'ref' not imported",
                "GitLab (Work): 2 custom fields kept in the generic attribute",
            ]
        )
        #expect(!batch.notes.joined().contains("hidden-s3cret"))
    }

    @Test func read_secureNote_isAGenericPasswordHoldingTheNote() throws {
        let batch = try read(.bitwardenJSON, export(#"{"type": 2, "name": "Recovery codes", "notes": "a b c"}"#))
        let entry = try #require(batch.entries.first)
        #expect(entry.itemClass == .genericPassword)
        #expect(entry.attributes.service == "Recovery codes")
        #expect(entry.attributes.itemDescription == "secure note")
        #expect(entry.secretText == "a b c")
    }

    @Test func read_cardsIdentitiesKeysTrashAndUnknownTypes_areSkippedWithReasons() throws {
        let items = [
            #"{"type": 3, "name": "Visa"}"#, #"{"type": 4, "name": "Me"}"#, #"{"type": 5, "name": "Key"}"#,
            #"{"type": 9, "name": "New"}"#, #"{"type": 1, "name": "Gone", "deletedDate": "2024-01-01T00:00:00Z"}"#,
        ]
        let batch = try read(.bitwardenJSON, export(items.joined(separator: ",")))
        #expect(batch.entries.isEmpty)
        #expect(
            batch.skipped == [
                ImportSkip(entry: "Visa", reason: .excluded("cards are not imported")),
                ImportSkip(entry: "Me", reason: .excluded("identities are not imported")),
                ImportSkip(entry: "Key", reason: .excluded("SSH keys are not imported")),
                ImportSkip(entry: "New", reason: .excluded("unknown item type 9")),
                ImportSkip(entry: "Gone", reason: .excluded("in the trash")),
            ]
        )
    }

    @Test func read_encryptedExport_isRefused() throws {
        let error = try #require(readError(.bitwardenJSON, #"{"encrypted": true, "items": []}"#))
        #expect(error == ImportError(.encrypted))
        #expect(error.reason == "the export is encrypted; export it again as unencrypted JSON")
    }

    @Test func read_missingItems_namesTheKey() throws {
        let error = try #require(readError(.bitwardenJSON, #"{"folders": []}"#))
        #expect(error == ImportError(.missingField))
        #expect(error.field == "items")
        #expect(error.reason == "not a Bitwarden JSON export (no 'items' key)")
    }

    @Test func read_wrongType_namesThePathAndNotTheValue() throws {
        let error = try #require(
            readError(.bitwardenJSON, #"{"items": [{"type": 1, "login": {"password": 12345678}}]}"#)
        )
        #expect(error == ImportError(.malformed))
        #expect(error.field?.hasSuffix("login.password") == true)
        #expect(!error.description.contains("12345678"))
    }

    @Test func read_notJSON_isMalformed() {
        #expect(readError(.bitwardenJSON, "name,password\n") == ImportError(.malformed))
    }
}
