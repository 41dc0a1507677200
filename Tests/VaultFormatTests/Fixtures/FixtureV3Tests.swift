// vault: the golden fixtures of format 3 (commit slots, scope trees, histories) and its merge
// fixtures, walked from the manifest.

import Foundation
import Testing
import VaultTestSupport

@testable import VaultFormat

@Suite("Fixtures v3")
struct FixtureV3Tests {
    static let version = FixtureCatalogV3.folder
    static let cases: [FixtureCase] = (try? FixtureRunner.manifest(version: version).cases) ?? []
    static let checks = ManifestChecks(version: version, cases: cases)

    @Test func manifestLoadsAndCoversEachArea() throws {
        let manifest = try FixtureRunner.manifest(version: Self.version)
        #expect(manifest.format == "vault v3")
        #expect(Set(manifest.cases.map(\.name)).count == manifest.cases.count, "case names are unique")
        #expect(Set(manifest.cases.map(\.expect)) == ["success", "failure", "merge"])
        let names = Set(manifest.cases.map(\.name))
        for required in [
            "v3_minimal", "v3_classes", "v3_commits", "commit_uncommitted_tail", "commit_torn_short",
            "keyslot_device_base", "groups_runner", "v3_deletions", "v3_migrated_v11", "v3_migrated_v2",
            "v3_tree_levels", "slot_checksum_mismatch", "slot_generations_equal", "slot_mac_mismatch",
            "header_hash_mismatch", "root_does_not_open", "scope_master_rolled_back_password", "node_level_skipped",
            "entry_wrong_scope", "history_count_17", "record_outside_heap", "chunks_overlap",
            "root_live_bytes_wrong", "header_stanzas_33", "slot_length_not_512", "merge_concurrent_edits",
            "merge_three_replicas", "merge_mixed_v11_v3",
        ] {
            #expect(names.contains(required), "\(required) is missing")
        }
    }

    @Test func everyCaseIsDocumentedInTheSpec() throws { try Self.checks.expectEveryCaseInTheSpec() }

    /// The generator reproduces every landed file byte for byte.
    @Test func generatorReproducesEveryLandedFixture() throws {
        try Self.checks.expectGeneratorReproducesTheFolder(try FixtureCatalogV3.generate())
    }

    @Test(arguments: cases.filter { $0.expect != "merge" })
    func caseHasTheExpectedOutcome(_ fixture: FixtureCase) throws {
        guard let opened = try Self.checks.openAsTheManifestSays(fixture) else { return }
        let snapshot = opened.snapshot
        let store = try #require(snapshot.format3, "\(fixture.name) is not format 3")
        #expect(snapshot.header.generation == fixture.generation, "\(fixture.name): the commit read (R3-SLT-4)")
        #expect(snapshot.skippedIncompleteCommit == (fixture.skippedCommit ?? false), "\(fixture.name): R3-SLT-4")
        let file = try FixtureRunner.bytes(fixture.file, version: Self.version)
        #expect(try store.verifyHeap(fileLength: file.count) == (fixture.uncommittedTail ?? 0), "R3-SLT-6")
        #expect(snapshot.header.isWritable == !(fixture.readOnly ?? false), "\(fixture.name): R-HDR-3")
        #expect(snapshot.header.weakKeyslots.isEmpty == !(fixture.weakKDF ?? false), "\(fixture.name): R-KS-4")
        let contents = try store.contents()
        var histories: [String: [String]] = [:]
        for position in 0..<contents.index.count {
            histories[contents.index.entry(at: position).itemID.description] =
                contents.histories[position].events.map(\.description)
        }
        for item in try FixtureRunner.expectedItems(fixture, version: Self.version) {
            #expect(histories[item.id] == item.history, "\(fixture.name): history of \(item.id)")
        }
        let deletions = contents.deletions.values.sorted { $0.key.itemID < $1.key.itemID }.map { deletion in
            FixtureDeletion(
                id: deletion.key.itemID.description,
                deletedAt: deletion.deletedAt,
                history: deletion.history.events.map(\.description),
                tag: Hex.encode(withUnsafeBytes(of: deletion.key.tag.bigEndian) { Array($0) }),
                scope: [Int(deletion.scope.kind), Int(deletion.scope.domain)]
            )
        }
        #expect(deletions == fixture.deletions ?? [], "\(fixture.name): deletion entries")
    }

    /// No file of a success case holds its items' services, accounts or secrets in clear.
    @Test(arguments: cases.filter { $0.expect == "success" })
    func fileHoldsNoAttributeOrSecretInClear(_ fixture: FixtureCase) throws {
        try Self.checks.expectNoClearText(fixture)
    }

    /// Every file a key holder edited authenticates under that holder's `HK`, both slots: its
    /// defect is the one the case names, not a MAC a writer without the key could not compute.
    @Test(arguments: cases.filter { ["base key", "master key"].contains($0.writer ?? "") })
    func keyHoldersEditsAuthenticate(_ fixture: FixtureCase) throws {
        let bytes = try FixtureRunner.bytes(fixture.file, version: Self.version)
        let good = try VaultSnapshot.open(
            try FixtureRunner.bytes("damage_base.vault", version: Self.version),
            with: .password(FixtureCatalogV3.password)
        )
        for start in [0, 512] where bytes[start..<start + 512].contains(where: { $0 != 0 }) {
            #expect(throws: Never.self, "\(fixture.name), slot at \(start)") {
                try VaultSnapshot.verifyMAC(Array(bytes[start..<start + 512]), keys: good.keys)
            }
        }
    }

    /// What the fixtures show beyond their outcome: both slots in use and waste in the heap, a
    /// tree of two levels, migrated deletions at tag 0.
    @Test func filesHaveTheShapeTheirCasesDescribe() throws {
        let open = { (name: String) in
            try VaultSnapshot.open(
                try FixtureRunner.bytes(name, version: Self.version),
                with: .password(FixtureCatalogV3.password)
            )
        }
        let commits = try FixtureRunner.bytes("v3_commits.vault", version: Self.version)
        #expect(!commits[512..<1_024].allSatisfy { $0 == 0 } && commits[160] == 0 && commits[512 + 160] == 1)
        let snapshot = try open("v3_commits.vault")
        #expect(snapshot.format3?.slot.index == 0 && snapshot.header.generation == 5)
        #expect(try #require(snapshot.liveByteCount) < commits.count - 1_024, "older commits left waste")
        let tree = try #require(try open("v3_tree_levels.vault").format3)
        let top = try tree.tree(.master).node(
            try #require(tree.state(.master)).tree,
            level: nil,
            isTop: true,
            in: tree.heap
        )
        #expect(top.level == 1)
        let minimal = try FixtureRunner.bytes("v3_minimal.vault", version: Self.version)
        #expect(minimal[512..<1_024].allSatisfy { $0 == 0 }, "a file written whole leaves slot 1 empty")
    }

    // MARK: - Merges

    /// Each merge case, merged through ``VaultMerge`` in every order its manifest lists, gives the
    /// items and deletion entries listed, with their histories; merging the result with any
    /// replica again changes nothing.
    @Test(arguments: cases.filter { $0.expect == "merge" })
    func mergeGivesTheListedItems(_ fixture: FixtureCase) throws {
        let credentials = try FixtureRunner.credentials(fixture, version: Self.version)
        let replicas = try #require(fixture.replicas).map { try FixtureRunner.bytes($0, version: Self.version) }
        let states = try replicas.map { try Self.histories(of: $0, credentials) }
        let orders = try #require(fixture.orders)
        #expect(orders.count >= 2 && orders.allSatisfy { Set($0) == Set(replicas.indices) })
        for order in orders {
            var result = replicas[order[0]]
            var conflicts: [FixtureConflict] = []
            for next in order.dropFirst() {
                let merged = try VaultMerge.merge(
                    ours: try VaultSnapshot.open(result, with: credentials),
                    theirs: try VaultSnapshot.open(replicas[next], with: credentials)
                )
                conflicts = merged.report.conflicts.map {
                    FixtureConflict(id: $0.itemID.description, kind: $0.kind.rawValue)
                }
                result = try merged.writer.encode(now: FixtureCatalog.epoch + 86_400_000)
            }
            let label = "\(fixture.name), order \(order)"
            if let expected = fixture.conflicts { #expect(conflicts == expected, "\(label): conflicts listed") }
            let snapshot = try VaultSnapshot.open(result, with: credentials)
            #expect(snapshot.header.isVersion3, "\(label): the result is format 3 (R-MRG-14)")
            _ = try snapshot.verify()
            let merged = try Self.histories(of: result, credentials)
            let items = try snapshot.items(includeSecrets: true)
            let expected = try #require(fixture.items)
            #expect(items.count == expected.count, "\(label): items")
            let byID = Dictionary(uniqueKeysWithValues: expected.map { ($0.id, $0) })
            for item in items {
                let id = item.entry.itemID
                let want = try #require(byID[id.description], "\(label): unexpected item \(id)")
                #expect(
                    FixtureRunner.mismatch(item, want) == nil,
                    "\(label): \(FixtureRunner.mismatch(item, want) ?? "")"
                )
                let history = try #require(merged[id])
                #expect(history.events.map(\.description) == want.history, "\(label): history of \(id)")
                #expect(states.map { Self.relation(history, $0[id]) } == want.relations, "\(label): relations of \(id)")
            }
            let deletions = try #require(snapshot.format3).contents().deletions
            #expect(deletions.count == (fixture.deletions ?? []).count, "\(label): deletion entries")
            for want in fixture.deletions ?? [] {
                let id = try #require(ItemID(hex: want.id))
                let deletion = try #require(deletions[id], "\(label): \(want.id)")
                #expect(deletion.deletedAt == want.deletedAt, "\(label): deletedAt of \(want.id)")
                #expect(deletion.history.events.map(\.description) == want.history, "\(label): history of \(want.id)")
                let relations = states.map { Self.relation(deletion.history, $0[deletion.key.itemID]) }
                #expect(relations == want.relations, "\(label): relations of \(want.id)")
            }
            for replica in replicas {
                let again = try VaultMerge.merge(
                    ours: try VaultSnapshot.open(result, with: credentials),
                    theirs: try VaultSnapshot.open(replica, with: credentials)
                )
                #expect(!again.report.changesOurs, "\(label): merging the result with a replica again changes it")
            }
        }
    }

    /// The history of every entry of a file, live or deleted: a format-3 file's, or an earlier
    /// file's as a merge reads it (Spec/format-v3.md §11).
    static func histories(of file: [UInt8], _ credentials: Credentials) throws -> [ItemID: EventHistory] {
        let snapshot = try VaultSnapshot.open(file, with: credentials)
        var out: [ItemID: EventHistory] = [:]
        if let contents = try snapshot.format3?.contents() {
            for position in 0..<contents.index.count {
                out[contents.index.entry(at: position).itemID] = contents.histories[position]
            }
            for (id, deletion) in contents.deletions { out[id] = deletion.history }
            return out
        }
        let index = try snapshot.index
        for entry in index.entries { out[entry.itemID] = EventHistory(version: entry.version) }
        for deletion in index.deletions {
            out[deletion.itemID] = EventHistory(migratedDeletionOf: deletion.itemID, at: deletion.deletedAt)
        }
        return out
    }

    /// The manifest's word for what a merged history is to a replica's.
    static func relation(_ merged: EventHistory, _ replica: EventHistory?) -> String {
        guard let replica else { return "absent" }
        switch merged.relation(to: replica) {
        case .equal: return "equal"
        case .descends: return "descends"
        case .isAncestor: return "isAncestor"
        case .concurrent: return "concurrent"
        }
    }
}
