// vault: one scan of every item, on every processor, in index order (issue 17 section 1).

import Testing
import VaultFormat
import VaultIO

@Suite("Item scan")
struct ItemScanTests {
    /// Enough items for several parallel chunks: the items still come back in index order,
    /// filtered, with the class filter applied before anything is decrypted.
    @Test func aLargeVault_isScannedInChunks_inIndexOrder() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { txn in
                for number in 0..<3000 { try txn.set(makeDraft(service: "s\(number)", secret: "v\(number)")) }
            }
            try vault.read { snapshot in
                let all = try snapshot.scanItems(into: ItemCollector.self)
                #expect(all.chunks.count > 1 || ParallelChunks.ranges(count: 3000).count == 1)
                let index = try snapshot.index
                let order = (0..<index.count).map { index.entry(at: $0).itemID }
                #expect(all.items.map(\.entry.itemID) == order)
                #expect(all.items.allSatisfy { $0.secret == nil })

                let even = try snapshot.scanItems(
                    into: ItemCollector.self,
                    includeSecrets: true,
                    where: { Int($0.attributes.service.dropFirst())! % 2 == 0 }
                )
                #expect(even.items.count == 1500)
                #expect(
                    even.items.allSatisfy { item in
                        item.secret.map { String(decoding: $0.copyBytes(), as: UTF8.self) }
                            == "v" + item.attributes.service.dropFirst()
                    }
                )
                let internet = try snapshot.scanItems(into: ItemCollector.self, itemClass: .internetPassword)
                #expect(internet.items.isEmpty && internet.unavailable.isEmpty)
            }
        }
    }

    /// A damaged record stops a scan, unless it salvages; then only the damaged items that may
    /// match are reported.
    @Test func damage_stopsAScan_unlessItSalvages() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: testConfiguration11)
            let drafts = ["a", "b", "c"].map { makeDraft(service: $0) }
            try vault.write { txn in for draft in drafts { try txn.set(draft) } }
            try damage(.secret, of: drafts[1].id, in: vault)
            try damage(.attributes, of: drafts[2].id, in: vault)
            try vault.read { snapshot in
                #expect(throws: ItemDamage.self) {
                    try snapshot.scanItems(into: ItemCollector.self, includeSecrets: true)
                }
                let salvaged = try snapshot.scanItems(
                    into: ItemCollector.self,
                    includeSecrets: true,
                    salvage: true,
                    mayMatch: { $0.attributes?.service != "b" }
                )
                #expect(salvaged.items.map(\.attributes.service) == ["a"])
                #expect(salvaged.damaged.map(\.entry.itemID) == [drafts[2].id])
            }
        }
    }
}
