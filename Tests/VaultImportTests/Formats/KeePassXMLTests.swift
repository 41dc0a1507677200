// VaultImport tests: the KeePass 2.x XML document (Spec/cli.md 7.2).

import Foundation
import Testing
import VaultIO

@testable import VaultImport

@Suite("KeePassXC XML")
struct KeePassXMLTests {
    /// A document whose top group is the database, with one folder and a recycle bin.
    func document(_ body: String, recycleBin: String = "QkJCQkJCQkJCQkJCQkJCQg==") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <KeePassFile><Meta><RecycleBinUUID>\(recycleBin)</RecycleBinUUID></Meta>
        <Root><Group><UUID>AAAAAAAAAAAAAAAAAAAAAA==</UUID><Name>Passwords</Name>\(body)</Group></Root></KeePassFile>
        """
    }

    func entry(_ strings: [(String, String, protected: Bool)], times: String = "") -> String {
        let fields = strings.map { key, value, protected in
            "<String><Key>\(key)</Key><Value\(protected ? " ProtectInMemory=\"True\"" : "")>\(value)</Value></String>"
        }
        return "<Entry>\(fields.joined())\(times)</Entry>"
    }

    @Test func read_entryInAFolder_mapsURLUserPasswordNotesAndDates() throws {
        let times = "<Times><CreationTime>2024-01-01T00:00:00Z</CreationTime></Times>"
        let login = entry(
            [
                ("Title", "GitHub", false), ("UserName", "alice", false), ("Password", "gh-pässword", true),
                ("URL", "https://GitHub.com:8443/login", false), ("Notes", "line 1\nline 2", false),
            ],
            times: times
        )
        let batch = try read(.keepassXML, document("<Group><Name>Internet</Name>\(login)</Group>"))
        let item = try #require(batch.entries.first)
        #expect(item.name == "GitHub (Internet)")
        #expect(item.itemClass == .internetPassword)
        #expect(item.attributes.server == "github.com")
        #expect(item.attributes.protocol == "https")
        #expect(item.attributes.port == 8443)
        #expect(item.attributes.path == "/login")
        #expect(item.attributes.account == "alice")
        #expect(item.attributes.label == "GitHub")
        #expect(item.attributes.comment == "line 1\nline 2")
        #expect(item.attributes.itemDescription == "Internet")
        #expect(item.secretText == "gh-pässword")
        #expect(item.attributes.creationDate == 1_704_067_200_000)
        #expect(item.attributes.modificationDate == item.attributes.creationDate)
        #expect(batch.skipped.isEmpty)
    }

    @Test func read_recycleBinGroup_skipsItsEntriesAndSubgroups() throws {
        let old = entry([("Title", "Postgres", false), ("Password", "p", true)])
        let bin =
            "<Group><UUID>QkJCQkJCQkJCQkJCQkJCQg==</UUID><Name>Recycle Bin</Name>\(old)"
            + "<Group><Name>Inner</Name>\(entry([("Title", "Deep", false)]))</Group></Group>"
        let batch = try read(.keepassXML, document(bin))
        #expect(batch.entries.isEmpty)
        #expect(
            batch.skipped == [
                ImportSkip(entry: "Postgres (Recycle Bin)", reason: .excluded("in the recycle bin")),
                ImportSkip(entry: "Deep (Recycle Bin/Inner)", reason: .excluded("in the recycle bin")),
            ]
        )
    }

    @Test func read_customFields_keepsUnprotectedOnesAndNotesTheRest() throws {
        let batch = try read(
            .keepassXML,
            document(entry([("Title", "VPN", false), ("Region", "eu/west", false), ("Recovery", "r-s3cret", true)]))
        )
        let item = try #require(batch.entries.first)
        #expect(String(decoding: item.attributes.generic, as: UTF8.self) == #"{"Region":"eu/west"}"#)
        #expect(
            batch.notes == [
                "VPN: protected field 'Recovery' not imported", "VPN: 1 custom fields kept in the generic attribute",
            ]
        )
        #expect(!batch.notes.joined().contains("r-s3cret"))
    }

    @Test func time_kdbx4Base64_isSecondsSinceYearOne() throws {
        let seconds = Int64(62_135_596_800 + 1_704_067_200).littleEndian
        let text = withUnsafeBytes(of: seconds) { Data($0) }.base64EncodedString()
        #expect(KeePassXML.time(text) == 1_704_067_200_000)
        #expect(KeePassXML.time("not a time") == nil)
    }

    @Test func read_notWellFormed_isMalformedWithALineAndNoSecret() throws {
        let text =
            "<KeePassFile>\n<Root>\n<Group><Entry><String><Key>Password</Key><Value>hunter2</Value></Strin>\n"
            + "</Entry></Group></Root></KeePassFile>\n"
        let error = try #require(readError(.keepassXML, text))
        #expect(error == ImportError(.malformed))
        #expect(error.row != nil)  // where libxml2 stopped, which may be past the fault
        #expect(error.reason.hasPrefix("not well-formed XML"))
        #expect(!error.description.contains("hunter2"))
    }

    /// libxml2 reads the export (FoundationXML is gone): a document type declaration is refused
    /// before any entity could expand, and nothing of the document is quoted.
    @Test func read_documentTypeDeclaration_isRefusedWithoutExpansion() throws {
        let text =
            "<?xml version=\"1.0\"?>\n<!DOCTYPE KeePassFile [<!ENTITY a \"hunter2hunter2\">"
            + "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]>\n"
            + "<KeePassFile><Root><Group><Entry><String><Key>Password</Key><Value>&b;</Value></String>"
            + "</Entry></Group></Root></KeePassFile>\n"
        let error = try #require(readError(.keepassXML, text))
        #expect(error == ImportError(.malformed))
        #expect(error.reason.contains("document type declaration"))
        #expect(!error.description.contains("hunter2"))
    }

    @Test func aReaderThatCannotBeLoadedBlamesTheMachineNotTheFile() {
        let error = ImportError(
            ImportProblem("libxml2 cannot be loaded", code: .readerUnavailable),
            format: .keepassXML
        )
        #expect(error.description == "cannot read keepassxc-xml exports here: libxml2 cannot be loaded")
    }

    @Test func read_withoutRoot_namesTheMissingElement() throws {
        let error = try #require(readError(.keepassXML, "<KeePassFile><Meta/></KeePassFile>"))
        #expect(error == ImportError(.missingField))
        #expect(error.field == "KeePassFile/Root")
        #expect(error.description == "the file is not a valid keepassxc-xml export: no KeePassFile/Root element")
    }
}
