// vault: one damaged record costs that item only, through the Keychain API too (L-KC-17).

import Foundation
import Synchronization
import Testing
import VaultFormat
import VaultIO

/// Collects what a keychain reports to ``Keychain/onDamagedItem(_:)``.
final class DamageReports: Sendable {
    private let reports = Mutex<[KeychainDamagedItem]>([])
    var all: [KeychainDamagedItem] { reports.withLock { $0 } }
    var ids: Set<ItemID> { Set(all.map(\.persistentReference)) }
    func handler() -> Keychain.DamagedItemHandler { { damaged in self.reports.withLock { $0.append(damaged) } } }
}

/// A vault with keychains `app` (keys a, b, c) and `other` (key x); `b`'s record is damaged as `part` says.
private func withDamagedKeychain(
    _ part: RecordPart,
    _ body: (_ vault: Vault, _ app: Keychain, _ damagedID: ItemID, _ reports: DamageReports) throws -> Void
) throws {
    try withTemporaryDirectory { directory in
        let vault = try makeVault(in: directory)
        let reports = DamageReports()
        let app = Keychain(service: "app", vault: vault).onDamagedItem(reports.handler())
        for key in ["a", "b", "c"] { try app.set("value of \(key)", forKey: key) }
        try Keychain(service: "other", vault: vault).set("value of x", forKey: "x")
        let id = try #require(try app.attributes(forKey: "b")).persistentReference
        try damage(part, of: id, in: vault)
        try body(vault, app, id, reports)
    }
}

@Suite("Damaged keychain items")
struct DamagedKeychainItemTests {
    @Test(arguments: [RecordPart.attributes, .secret])
    func listings_skipTheDamagedItem_andReportItsID(_ part: RecordPart) throws {
        try withDamagedKeychain(part) { vault, app, id, reports in
            #expect(try app.allItems().map(\.key) == (part == .secret ? ["a", "b", "c"] : ["a", "c"]))
            let withValues = try app.allItems(includingValues: true)
            #expect(withValues.map(\.key) == ["a", "c"])
            #expect(
                withValues.map { String(decoding: $0.value ?? Data(), as: UTF8.self) } == ["value of a", "value of c"]
            )
            #expect(try app.allKeys() == (part == .secret ? ["a", "b", "c"] : ["a", "c"]))
            #expect(reports.ids == [id])
            // Another service's keychain: a damaged secret is not its item; damaged attributes may be.
            let otherReports = DamageReports()
            let other = Keychain(service: "other", vault: vault).onDamagedItem(otherReports.handler())
            #expect(try other.allKeys() == ["x"])
            #expect(try other.allItems(includingValues: true).map(\.key) == ["x"])
            #expect(otherReports.ids == (part == .attributes ? [id] : []))
        }
    }

    @Test func aReport_namesServiceAndAccount_whenTheAttributesOpen_andNeverTheSecret() throws {
        try withDamagedKeychain(.secret) { _, app, id, reports in
            _ = try app.allItems(includingValues: true)
            let report = try #require(reports.all.first)
            #expect(report.persistentReference == id)
            #expect(report.itemClass == .genericPassword)
            #expect(report.service == "app")
            #expect(report.account == "b")
            #expect(report.attributesReadable)
            #expect(report.error.code == .recordCorrupt)
            #expect(report.description.hasPrefix("item \(id) (generic \"app\"/\"b\"): "))
            #expect(!report.description.contains("value of"))
            #expect(try app.damagedItems().map(\.persistentReference) == [id])
        }
        try withDamagedKeychain(.attributes) { _, app, id, _ in
            let report = try #require(try app.damagedItems().first)
            #expect(report.persistentReference == id)
            #expect(report.service == nil && report.account == nil && !report.attributesReadable)
            #expect(report.description.hasPrefix("item \(id) (generic, attributes unreadable): "))
        }
    }

    @Test(arguments: [RecordPart.attributes, .secret])
    func get_ofTheDamagedItem_throwsCorruptNamingIt_andTheOthersRead(_ part: RecordPart) throws {
        try withDamagedKeychain(part) { _, app, id, _ in
            #expect(throws: KeychainError.corrupt(what: "record of item \(id)")) { try app.string(forKey: "b") }
            #expect(throws: KeychainError.corrupt(what: "record of item \(id)")) { try app.get("b", as: String.self) }
            let others = try ["a", "c", "none"].map { try app.string(forKey: $0) }
            #expect(others == ["value of a", "value of c", nil])
        }
    }

    @Test func set_overDamagedAttributes_throwsNamingTheRecord_overADamagedSecret_repairsIt() throws {
        try withDamagedKeychain(.attributes) { vault, app, id, _ in
            #expect(throws: KeychainError.corrupt(what: "record of item \(id)")) { try app.set("new", forKey: "b") }
            let error = try #require(throws: VaultError.self) {
                try VaultError.catching { try vault.write { try $0.set(makeDraft(service: "app", account: "b")) } }
            }
            #expect(error.damagedItem == id)
            #expect(error.formatCode == .recordCorrupt)
            #expect(error.kind == .corrupt(what: "record of item \(id)"))
        }
        try withDamagedKeychain(.secret) { _, app, id, _ in
            try app.set("new", forKey: "b")
            #expect(try app.string(forKey: "b") == "new")
            #expect(try app.attributes(forKey: "b")?.persistentReference == id)
            #expect(try app.damagedItems().isEmpty)
        }
    }

    @Test func removeAll_removesWhatMatches_damagedSecretIncluded_andReportsWhatItCannotTell() throws {
        try withDamagedKeychain(.secret) { vault, app, _, reports in
            try app.removeAll()
            #expect(try app.allKeys().isEmpty)
            #expect(reports.all.isEmpty)
            #expect(try vault.read { try $0.verifyEachItem() }.damaged.isEmpty)
            #expect(try Keychain(service: "other", vault: vault).allKeys() == ["x"])
        }
        try withDamagedKeychain(.attributes) { vault, app, id, reports in
            try app.removeAll()
            #expect(reports.ids == [id])
            #expect(try vault.read { try $0.verifyEachItem() }.damaged.map(\.entry.itemID) == [id])
            #expect(try Keychain(service: "other", vault: vault).allKeys() == ["x"])
            // The app removes it by ID, as the report says.
            try vault.write { txn in for damaged in reports.all { try txn.remove(id: damaged.persistentReference) } }
            #expect(try app.damagedItems().isEmpty)
            #expect(try vault.read { try $0.verifyEachItem() }.checked == 1)
        }
    }

    @Test func removals_acrossScopes_skipAndReportRecordsTheyCannotTell() throws {
        try withDamagedKeychain(.attributes) { vault, app, id, reports in
            let removedCopies = try app.remove("a", including: .keychainAccess)
            #expect(removedCopies == 1)
            #expect(reports.ids == [id])
            let groupReports = DamageReports()
            let removedInGroup = try Keychain.removeAll(in: vault, onDamagedItem: groupReports.handler())
            #expect(removedInGroup == 2)
            #expect(groupReports.ids == [id])
        }
    }

    @Test func migration_failsNamingADamagedSecret_andLeavesAndReportsDamagedAttributes() throws {
        try withDamagedKeychain(.secret) { vault, app, id, _ in
            let destination = Keychain(service: "new", vault: vault)
            #expect(throws: KeychainError.corrupt(what: "record of item \(id)")) {
                try destination.migrateItems(from: app, removingFromSource: true)
            }
            let (left, arrived) = (try app.allKeys(), try destination.allKeys())
            #expect(left == ["a", "b", "c"])
            #expect(arrived.isEmpty)
        }
        try withDamagedKeychain(.attributes) { vault, app, id, reports in
            let destination = Keychain(service: "new", vault: vault)
            let result = try destination.migrateItems(from: app, removingFromSource: true)
            #expect(result.migrated.sorted() == ["a", "c"])
            #expect(reports.ids == [id])
        }
    }

    @Test func inventory_listsADamagedRecordAsDamaged() throws {
        try withDamagedKeychain(.attributes) { vault, _, id, _ in
            let inventory = try vault.inventory()
            #expect(inventory.count == 4)
            #expect(inventory.filter { $0.availability == .damaged }.map(\.entry.itemID) == [id])
            #expect(vault.debugDescription.contains("<damaged>"))
        }
    }
}
