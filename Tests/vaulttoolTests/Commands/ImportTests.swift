// vaulttool tests: importing real KeePassXC exports, a Bitwarden export and the generic layouts.

import Foundation
import Testing

@Suite("Import")
struct ImportTests {
    /// Imports `sample` as `format` into a fresh vault and returns the summary JSON and the items.
    func importing(_ sample: String, as format: String, extra: [String] = []) throws -> (
        summary: [String: Any], items: [[String: Any]], workspace: Workspace
    ) {
        let w = try Workspace()
        try w.makeVault()
        let result = try w.run(
            ["import", "--password-file", "pw", "--from", format, "--json"] + extra + [Tool.data(sample), "v.vault"]
        )
        #expect(result.status == 0, "\(result.stderr)")
        let export = try w.run(["export", "--password-file", "pw", "--include-device-only", "v.vault"])
        let items = try #require(try export.json()["items"] as? [[String: Any]])
        return (try result.json(), items, w)
    }

    func item(_ items: [[String: Any]], label: String) throws -> [String: Any] {
        try #require(items.first { $0["label"] as? String == label })
    }

    func reasons(_ summary: [String: Any]) -> [String: String] {
        let skipped = summary["skipped"] as? [[String: String]] ?? []
        return Dictionary(skipped.map { ($0["entry"]!, $0["reason"]!) }, uniquingKeysWith: { a, _ in a })
    }

    @Test func keepassxcXML() throws {
        let (summary, items, _) = try importing(
            "keepassxc-2.7.4.xml",
            as: "keepassxc-xml",
            extra: ["--skip-duplicates"]
        )
        #expect(summary["imported"] as? Int == 7)
        #expect(
            reasons(summary) == [
                "Postgres (Recycle Bin)": "in the recycle bin",
                "GitHub-duplicate (Internet)": "same primary key as GitHub (Internet)",
            ]
        )
        let github = try item(items, label: "GitHub")
        #expect(github["class"] as? String == "internetPassword")
        #expect(github["server"] as? String == "github.com")
        #expect(github["protocol"] as? String == "https")
        #expect(github["path"] as? String == "/login")
        #expect(github["account"] as? String == "alice")
        #expect(github["secret"] as? String == "gh-pässword-1")
        #expect(github["comment"] as? String == "Work account\nsecond line")
        #expect(github["description"] as? String == "Internet")
        #expect((github["created"] as? String)?.hasPrefix("20") == true)
        let mail = try item(items, label: "Mail")
        #expect(mail["port"] as? Int == 8443)
        let wifi = try item(items, label: "Home Wi-Fi")
        #expect(wifi["class"] as? String == "genericPassword")
        #expect(wifi["service"] as? String == "Home Wi-Fi")
        let empty = try item(items, label: "Empty password")
        #expect(empty["secret"] as? String == "")
        let postgres = try item(items, label: "Postgres")
        #expect(postgres["secret"] as? String == "db-secret-2")
        #expect(postgres["description"] as? String == "Servers")
        #expect(try item(items, label: "Bastion")["protocol"] as? String == "ssh")
    }

    @Test func keepassxcCSV_matchesTheXML() throws {
        let (summary, items, _) = try importing(
            "keepassxc-2.7.4.csv",
            as: "keepassxc-csv",
            extra: ["--skip-duplicates"]
        )
        #expect(summary["imported"] as? Int == 7)
        #expect(reasons(summary)["Postgres (Recycle Bin)"] == "in the recycle bin")
        let (_, xmlItems, _) = try importing("keepassxc-2.7.4.xml", as: "keepassxc-xml", extra: ["--skip-duplicates"])
        func key(_ item: [String: Any]) -> String {
            [
                "label", "service", "server", "protocol", "account", "secret", "comment", "description", "created",
                "modified",
            ]
            .map { "\(item[$0] ?? "")" }.joined(separator: "|")
        }
        #expect(Set(items.map(key)) == Set(xmlItems.map(key)))
    }

    @Test func bitwardenJSON() throws {
        let (summary, items, _) = try importing("bitwarden-unencrypted.json", as: "bitwarden-json")
        #expect(summary["imported"] as? Int == 3)
        #expect(
            reasons(summary) == [
                "Visa (Personal)": "cards are not imported", "Jane Doe": "identities are not imported",
                "Old forum": "in the trash",
            ]
        )
        let notes = summary["notes"] as? [String] ?? []
        #expect(notes.contains("GitLab (Work): hidden field 'recovery pin' not imported"))
        #expect(notes.contains("GitLab (Work): TOTP not imported"))
        #expect(notes.contains("GitLab (Work): only the first of 2 URIs kept"))
        let gitlab = try item(items, label: "GitLab")
        #expect(gitlab["server"] as? String == "gitlab.example.com")
        #expect(gitlab["path"] as? String == "/users/sign_in")
        #expect(gitlab["account"] as? String == "runner@example.com")
        #expect(gitlab["secret"] as? String == "gl-T0ken!pass")
        #expect(gitlab["description"] as? String == "Work")
        #expect(gitlab["created"] as? String == "2024-11-02T17:05:12.000Z")
        #expect(gitlab["modified"] as? String == "2025-03-14T09:26:53.589Z")
        let generic = Data(base64Encoded: gitlab["generic"] as? String ?? "").map {
            String(decoding: $0, as: UTF8.self)
        }
        #expect(generic == #"{"team":"platform"}"#)
        let router = try item(items, label: "Router admin")
        #expect(router["class"] as? String == "genericPassword")
        #expect(router["service"] as? String == "Router admin")
        let note = try item(items, label: "Safe combination")
        #expect(note["secret"] as? String == "12-34-56")
    }

    @Test func genericJSON_keepsEveryField_andSkipsBadItems() throws {
        let (summary, items, _) = try importing("generic.json", as: "json")
        #expect(summary["imported"] as? Int == 2)
        #expect(reasons(summary) == ["item 3": "no secret", "item 4": "unknown class 'kitchenSink'"])
        let app = try item(items, label: "App token")
        #expect(app["accessibility"] as? String == "always")
        #expect(app["generic"] as? String == "AAEC")
        #expect(app["created"] as? String == "2026-01-01T00:00:00.000Z")
        let ftp = try #require(items.first { $0["server"] as? String == "ftp.example.net" })
        #expect(ftp["secretBase64"] as? String == "AP8BAg==")
        #expect(ftp["port"] as? Int == 21)
    }

    @Test func genericCSV() throws {
        let (summary, items, _) = try importing(
            "generic.csv",
            as: "csv",
            extra: ["--accessibility", "afterFirstUnlock"]
        )
        #expect(summary["imported"] as? Int == 3)
        #expect(summary["notes"] as? [String] == ["column 'colour' ignored"])
        let skipped = reasons(summary)
        #expect(skipped.count == 2)
        #expect(skipped["row 6"] == "unknown accessibility 'bogusClass'")
        // Read without a JSON round trip: a bad port says so (it said "not valid JSON").
        #expect(skipped["row 5"] == "port '99999' is not a number from 0 to 65535")
        let deploy = try item(items, label: "Deploy key")
        #expect(deploy["secret"] as? String == #"k3y,with "quotes""#)
        #expect(deploy["accessibility"] as? String == "afterFirstUnlock")
        #expect(try item(items, label: "Mail")["port"] as? Int == 993)
    }

    @Test func importTwice_skipsExisting_unlessReplace_andDryRunWritesNothing() throws {
        let (_, _, w) = try importing("keepassxc-2.7.4.xml", as: "keepassxc-xml", extra: ["--skip-duplicates"])
        let generation = try w.run(["inspect", "--json", "v.vault"]).json()["generation"] as? Int
        let dry = try w.run([
            "migrate", "--password-file", "pw", "--from", "keepassxc-xml", "--replace", "--dry-run",
            Tool.data("keepassxc-2.7.4.xml"), "v.vault",
        ])
        #expect(dry.stdout.hasPrefix("Would import 0 items from "), "\(dry.stderr)")
        #expect(dry.stdout.contains("; would replace 7."))
        #expect(try w.run(["inspect", "--json", "v.vault"]).json()["generation"] as? Int == generation)
        let again = try w.run([
            "import", "--password-file", "pw", "--from", "keepassxc-xml", Tool.data("keepassxc-2.7.4.xml"), "v.vault",
        ])
        #expect(again.status == 1)
        #expect(again.stdout.contains("GitHub (Internet): already in the vault (use --replace to overwrite)"))
    }

    @Test func aFileInTheWrongFormat_exits4() throws {
        let w = try Workspace()
        try w.makeVault()
        let result = try w.run([
            "import", "--password-file", "pw", "--from", "bitwarden-json", Tool.data("keepassxc-2.7.4.csv"), "v.vault",
        ])
        #expect(result.status == 4)
        #expect(result.stderr.hasPrefix("Error: The file is not a valid bitwarden-json export: "))
    }
}
