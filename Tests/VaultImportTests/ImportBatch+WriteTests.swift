// VaultImport tests: writing a batch: duplicates, replacement, groups, dry runs (Spec/cli.md 4.7).

import Foundation
import Testing
import VaultIO

@testable import VaultImport

@Suite("Import policy")
struct ImportPolicyTests {
    let keepassHeader = "Group,Title,Username,Password,URL,Notes\n"

    @Test func importItems_newEntries_areWrittenWithTheDefaultAccessibility() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        let report = try VaultImporter(format: .keepassCSV).importItems(
            from: Array((keepassHeader + "Root,GitHub,alice,pw1,https://github.com,\nRoot,Wi-Fi,,pw2,,\n").utf8),
            into: scratch.vault,
            options: ImportOptions(defaultAccessibility: .afterFirstUnlock)
        )
        #expect(report.imported == 2)
        #expect(report.replaced == 0)
        #expect(report.isWritten)
        let items = try scratch.items()
        #expect(Set(items.map(\.secret)) == ["pw1", "pw2"])
        #expect(items.allSatisfy { $0.item.entry.protectionClass == .afterFirstUnlock })
    }

    @Test func importItems_sameKeyTwiceInTheFile_refusesTheWholeImport() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        let batch = try read(
            .keepassCSV,
            keepassHeader + "Root,A,u,1,https://x.example,\nRoot,B,u,2,https://x.example,\n"
        )
        let report = try batch.importItems(into: scratch.vault)
        #expect(report.skipped == [ImportSkip(entry: "B", reason: .samePrimaryKey(as: "A"))])
        #expect(report.duplicateCount == 1)
        #expect(report.isRefused)
        #expect(!report.isWritten)
        #expect(report.imported == 1)  // what would have been imported
        #expect(try scratch.items().isEmpty)
    }

    @Test func importItems_skipDuplicates_importsTheRest() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        let batch = try read(
            .keepassCSV,
            keepassHeader + "Root,A,u,1,https://x.example,\nRoot,B,u,2,https://x.example,\n"
        )
        let report = try batch.importItems(into: scratch.vault, options: ImportOptions(skipDuplicates: true))
        #expect(!report.isRefused)
        #expect(report.isWritten)
        #expect(try scratch.items().map(\.secret) == ["1"])
    }

    @Test func importItems_sameKeyInDifferentGroups_getsTheGroupPathAsAccessGroup() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        let batch = try read(
            .keepassCSV,
            keepassHeader + "Root/Home,Mail,u,1,https://mail.example,\nRoot/Work/Ops,Mail,u,2,https://mail.example,\n"
        )
        let report = try batch.importItems(into: scratch.vault)
        #expect(report.imported == 2)
        #expect(report.skipped.isEmpty)
        #expect(Set(try scratch.items().map(\.item.attributes.accessGroup)) == ["Home", "Work/Ops"])
    }

    @Test func importItems_itemAlreadyInVault_isADuplicateUnlessReplacing() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        let first = try read(.keepassCSV, keepassHeader + "Root,GitHub,alice,old,https://github.com,\n")
        _ = try first.importItems(into: scratch.vault)
        let id = try #require(try scratch.items().first?.item.id)
        // Another spelling of the same key (host case) still names the stored item (L-KC-15).
        let second = try read(.keepassCSV, keepassHeader + "Root,GitHub,alice,new,https://GitHub.com,\n")

        let refused = try second.importItems(into: scratch.vault)
        #expect(refused.skipped == [ImportSkip(entry: "GitHub", reason: .alreadyInVault)])
        #expect(refused.isRefused)

        let replaced = try second.importItems(into: scratch.vault, options: ImportOptions(replaceExisting: true))
        #expect(replaced.replaced == 1)
        #expect(replaced.imported == 0)
        let items = try scratch.items()
        #expect(items.map(\.secret) == ["new"])
        #expect(items.first?.item.id == id)
    }

    @Test func importItems_idOfAnotherItem_isADuplicate() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        _ = try read(.json, #"{"items": [{"service": "a", "secret": "1"}]}"#).importItems(into: scratch.vault)
        let taken = try #require(try scratch.items().first?.item.id)
        let batch = try read(.json, #"{"items": [{"id": "\#(taken)", "service": "b", "secret": "2"}]}"#)
        let report = try batch.importItems(into: scratch.vault)
        #expect(report.skipped == [ImportSkip(entry: "item 1 (b)", reason: .idTaken)])
    }

    @Test func importItems_dryRun_reportsAndWritesNothing() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        let batch = try read(.csv, "service,account,secret\ndb,app,pw\n")
        let report = try batch.importItems(into: scratch.vault, options: ImportOptions(dryRun: true))
        #expect(report.imported == 1)
        #expect(!report.isRefused)
        #expect(!report.isWritten)
        #expect(try scratch.items().isEmpty)
    }

    @Test func apply_inTheCallersTransaction_commitsWithIt() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        let batch = try read(.csv, "service,account,secret\ndb,app,pw\n")
        let report = try scratch.vault.write { txn in try batch.apply(to: &txn) }
        #expect(report.imported == 1)
        let stored = try #require(try scratch.items().first)
        #expect(stored.item.attributes.service == "db")
        #expect(stored.secret == "pw")
    }

    @Test func report_readSkipsComeFirstAndNotesCarryOver() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        let batch = try read(.csv, "service,secret,colour\na,1,x\n,,y\na,2,z\n")
        let report = try batch.importItems(into: scratch.vault, options: ImportOptions(skipDuplicates: true))
        #expect(report.notes == ["column 'colour' ignored"])
        #expect(
            report.skipped == [
                ImportSkip(entry: "row 3", reason: .invalid("no secret")),
                ImportSkip(entry: "row 4 (a)", reason: .samePrimaryKey(as: "row 2 (a)")),
            ]
        )
    }

    @Test func entry_descriptionAndMirror_leaveTheSecretOut() throws {
        let entry = try #require(try read(.csv, "service,secret\ndb,pa55-s3cret\n").entries.first)
        #expect(!String(describing: entry).contains("pa55-s3cret"))
        var dumped = ""
        dump(entry, to: &dumped)
        #expect(!dumped.contains("pa55-s3cret"))
        #expect(entry.secretLength == 11)
    }

    @Test func preview_reportsAsADryRunIntoAnEmptyVault_andLeavesNothingBehind() throws {
        let batch = try read(
            .keepassCSV,
            keepassHeader + "Root,A,u,1,https://x.example,\nRoot,B,u,2,https://x.example,\nRoot,C,v,3,,\n"
        )
        let temporary = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        func scratchDirectories() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: temporary).filter {
                $0.hasPrefix("vault-import-preview-")
            }
        }
        let before = try scratchDirectories()
        let report = try batch.preview(options: ImportOptions(skipDuplicates: true))
        #expect(report.options.dryRun, "a preview is a dry run whatever the options say")
        #expect(report.imported == 2)
        #expect(report.skipped == [ImportSkip(entry: "B", reason: .samePrimaryKey(as: "A"))])
        #expect(!report.isWritten)
        #expect(try scratchDirectories() == before, "the scratch vault is gone")
    }
}
