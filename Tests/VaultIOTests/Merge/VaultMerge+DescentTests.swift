// vault: a three-way merge never takes a vault back (R-MRG-17).

import Foundation
import Testing
import VaultFormat
import VaultIO

@Suite("Merge: sides that do not descend from the ancestor")
struct MergeDescentTests {
    let t = MergeClock.start

    /// The history of the security review's attack: `old` holds "db" before its rotation, the
    /// ancestor (the branch point) holds it rotated and a newer item, `owner` changed more since.
    func history() throws -> (old: Replica, ancestor: Replica, owner: Replica, db: ItemID, added: ItemID) {
        var old = try Replica.empty()
        let db = ItemID(random: SystemRandom())
        let added = ItemID(random: SystemRandom())
        try old.set(db, service: "db", secret: "before rotation", at: t)
        var ancestor = old
        try ancestor.set(db, service: "db", secret: "rotated", at: t + 10)
        try ancestor.set(added, service: "added", secret: "added since", at: t + 20)
        var owner = ancestor
        try owner.set(ItemID(random: SystemRandom()), service: "owner", secret: "owner's edit", at: t + 30)
        return (old, ancestor, owner, db, added)
    }

    /// `replica` after `count` writes of new items dated `time`: its generation raised by work
    /// that touches none of the items under test (an abandoned branch's unrelated commits).
    func bumped(_ replica: Replica, by count: Int, at time: Int64) throws -> Replica {
        var out = replica
        for n in 0..<count {
            try out.set(ItemID(random: SystemRandom()), service: "bump \(n)", secret: "x", at: time)
        }
        return out
    }

    /// The index entry of `id` in `replica`.
    func entry(_ id: ItemID, in replica: Replica) throws -> IndexEntry {
        try #require(try replica.open().index.entries.first { $0.itemID == id })
    }

    /// A fork point holding "db", the ancestor that rotated it later, and a sibling of the fork
    /// whose generation was raised by unrelated writes.
    func rotation() throws -> (fork: Replica, ancestor: Replica, sibling: Replica, db: ItemID) {
        var fork = try Replica.empty()
        let db = ItemID(random: SystemRandom())
        try fork.set(db, service: "db", secret: "start", at: t)
        var ancestor = fork
        try ancestor.set(db, service: "db", secret: "rotated", at: t + 100)
        return (fork, ancestor, try bumped(fork, by: 5, at: t + 10), db)
    }

    @Test func olderCopyMergedIn_isRefused() throws {
        let h = try history()
        #expect(try h.old.open().header.generation < h.ancestor.open().header.generation)
        let error = try #require(throws: VaultMergeError.self) { try merged(h.owner, h.old, base: h.ancestor) }
        #expect(error.code == .notDescendant)
        #expect(error.reason.hasPrefix("theirs does not descend from the ancestor: its generation"))
        // Before R-MRG-17 the same merge reverted "db" and dropped "added"; the owner's file is
        // what a merge with a real descendant builds on.
        var theirs = h.ancestor
        try theirs.set(ItemID(random: SystemRandom()), service: "theirs", secret: "theirs' edit", at: t + 40)
        let (result, report) = try merged(h.owner, theirs, base: h.ancestor)
        #expect(report.conflicts.isEmpty && report.added == 1)
        #expect(try result.contents()[h.db]?.contains("|rotated|") == true)
    }

    /// An older copy whose generation was raised by unrelated writes (an abandoned branch) still
    /// holds the item before its rotation: refused by the item's version and rank.
    @Test func olderItemInACopyOfHigherGeneration_isRefused() throws {
        let h = try history()
        let sibling = try bumped(h.old, by: 6, at: t + 5)
        #expect(try sibling.open().header.generation > h.ancestor.open().header.generation)
        let error = try #require(throws: VaultMergeError.self) { try merged(h.owner, sibling, base: h.ancestor) }
        #expect(error.code == .notDescendant)
        #expect(error.reason.contains("holds an older version of item \(h.db)"))
    }

    /// A copy that holds, in an old version, an item the ancestor deleted would bring it back.
    @Test func itemTheAncestorDeleted_heldInAnOlderVersion_isRefused() throws {
        var old = try Replica.empty()
        let gone = ItemID(random: SystemRandom())
        try old.set(gone, service: "gone", secret: "leaked and deleted", at: t)
        var ancestor = old
        try ancestor.delete(gone, at: t + 10)
        let sibling = try bumped(old, by: 4, at: t + 5)
        let error = try #require(throws: VaultMergeError.self) { try merged(ancestor, sibling, base: ancestor) }
        #expect(error.reason.contains("holds item \(gone), which the ancestor deleted"))
        // An edit made after the deletion is a descendant's: it is merged (R-MRG-7 decides).
        var revived = ancestor
        try revived.set(gone, service: "gone", secret: "set again", at: t + 20)
        #expect(try merged(ancestor, revived, base: ancestor).0.contents()[gone]?.contains("|set again|") == true)
    }

    /// A side lacking an item of the ancestor with no deletion record (a fork from before the
    /// item existed) proves no deletion: the item stays. Before R-MRG-17 the merge dropped it.
    @Test func itemMissingWithoutADeletionRecord_isKept() throws {
        var fork = try Replica.empty()
        let db = ItemID(random: SystemRandom())
        let added = ItemID(random: SystemRandom())
        try fork.set(db, service: "db", secret: "db", at: t)
        var ancestor = fork
        try ancestor.set(added, service: "added", secret: "added since", at: t + 20)
        fork = try bumped(fork, by: 6, at: t + 50)
        let (result, report) = try merged(ancestor, fork, base: ancestor)
        #expect(report.deleted == 0 && report.added == 6)
        let contents = try result.contents()
        #expect(contents[added]?.contains("|added since|") == true)
        #expect(contents.count == 8)
    }

    /// A merge on a branch may adopt another branch's version with a lower record version than
    /// the ancestor's (R-MRG-11 copies it as ciphertext) when it won on rank: that is descent.
    @Test func versionAdoptedOnRank_withALowerRecordVersion_isADescendant() throws {
        var start = try Replica.empty()
        let x = ItemID(random: SystemRandom())
        try start.set(x, service: "x", secret: "start", at: t)
        var other = start
        try other.set(x, service: "x", secret: "other branch, later", at: t + 100)
        var ancestor = start
        for n in 0..<3 { try ancestor.set(ItemID(random: SystemRandom()), service: "m\(n)", secret: "m", at: t + 1) }
        try ancestor.set(x, service: "x", secret: "main, earlier", at: t + 50)
        var side = try merged(ancestor, other, base: start).0
        #expect(try entry(x, in: side).version < entry(x, in: ancestor).version)
        try side.set(ItemID(random: SystemRandom()), service: "side", secret: "s", at: t + 200)
        var owner = ancestor
        try owner.set(ItemID(random: SystemRandom()), service: "owner", secret: "o", at: t + 200)
        let (result, _) = try merged(owner, side, base: ancestor)
        #expect(try result.contents()[x]?.contains("|other branch, later|") == true)
    }

    /// The review's keyslot case: a recovery keyslot removed without a rekey comes back with an
    /// older copy. The merge refuses; the removed password opens nothing newer through it.
    @Test func olderCopyWithARemovedKeyslot_isRefused_andTheKeyslotStaysRemoved() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, name: "v.vault", configuration: testConfiguration11)
            try vault.write { try $0.addKeyslot(.password, credentials: .password("recovery")) }
            var db = makeDraft(service: "db", secret: "before rotation")
            try vault.write { try $0.set(db) }
            let oldPath = directory + "/old.vault"
            try FileManager.default.copyItem(atPath: vault.path, toPath: oldPath)
            try vault.write { _ = try $0.removeKeyslot(at: 1, rekey: nil) }
            db.secret = SecretBytes(utf8: "rotated")
            try vault.write { try $0.set(db) }
            let basePath = directory + "/base.vault"
            try FileManager.default.copyItem(atPath: vault.path, toPath: basePath)
            try vault.write { try $0.set(makeDraft(service: "owner")) }
            let open = { (path: String) in try VaultFileReader(path: path).open(with: .password(testPassword)) }
            let error = try #require(throws: VaultMergeError.self) {
                try vault.merge(try open(oldPath), base: try open(basePath))
            }
            #expect(error.code == .notDescendant)
            #expect(try VaultFileReader(path: vault.path).header().keyslots.count == 1)
            #expect(throws: VaultFormatError(.wrongCredential)) {
                try VaultFileReader(path: vault.path).open(with: .password("recovery"))
            }
        }
    }

    /// The review's bypass of the first R-MRG-17: a sibling branch forked before "db" was rotated,
    /// edited "db" itself (earlier than the rotation) and raised its generation with unrelated
    /// writes, so its record version is not lower than the ancestor's. Committed on top of the
    /// rotation it would revert it; its edit ranks below the ancestor's version, so it is refused.
    @Test func staleSiblingEdit_withAHigherRecordVersion_isRefused() throws {
        var (fork, ancestor, sibling, db) = try rotation()
        try sibling.set(db, service: "db", secret: "sibling edit (stale)", at: t + 50)
        #expect(try entry(db, in: sibling).version > entry(db, in: ancestor).version)
        let error = try #require(throws: VaultMergeError.self) { try merged(ancestor, sibling, base: ancestor) }
        #expect(error.reason.contains("holds an older version of item \(db)"))
        // The same sibling merged with the real ancestor (the fork point) is a conflict, decided by
        // rank: the rotation keeps the item, the sibling's edit is kept as a copy.
        let (result, report) = try merged(ancestor, sibling, base: fork)
        #expect(report.conflicts.first?.kind == .bothChanged)
        #expect(try result.contents()[db]?.contains("|rotated|") == true)
    }

    /// A deletion dated before the ancestor's version of the item is not a deletion of it.
    @Test func staleSiblingDeletion_isRefused() throws {
        var (_, ancestor, sibling, db) = try rotation()
        try sibling.delete(db, at: t + 50)
        let error = try #require(throws: VaultMergeError.self) { try merged(ancestor, sibling, base: ancestor) }
        #expect(error.reason.contains("deletes item \(db) at a time before the ancestor's version"))
    }

    /// R-MRG-12: keyslots from before a KDF raise (an older copy's) are never taken, even when no
    /// item tells the copy is older: the merged file keeps ours' (the ancestor's) keyslots.
    @Test func keyslotsThatLowerThePasswordKDF_areNotTaken() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, name: "v.vault", configuration: testConfiguration11)
            let siblingPath = directory + "/sibling.vault"
            try FileManager.default.copyItem(atPath: vault.path, toPath: siblingPath)
            try vault.write {
                _ = try $0.replaceKeyslot(
                    at: 0,
                    kind: .password,
                    credentials: .password(testPassword),
                    kdf: KDFParameters(memoryKiB: 1024, iterations: 3, lanes: 1),
                    rekey: nil
                )
            }
            let basePath = directory + "/base.vault"
            try FileManager.default.copyItem(atPath: vault.path, toPath: basePath)
            let sibling = try Vault(
                path: siblingPath,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            for n in 0..<4 { try sibling.write { try $0.set(makeDraft(service: "bump \(n)")) } }
            let open = { (path: String) in try VaultFileReader(path: path).open(with: .password(testPassword)) }
            let report = try vault.merge(try open(siblingPath), base: try open(basePath))
            #expect(report.keyslotsFrom == .ours)
            let kdf = try #require(try VaultFileReader(path: vault.path).header().keyslots[0].kdf)
            #expect(kdf.memoryKiB == 1024 && kdf.iterations == 3)
        }
    }

    /// The rollback record knows the keyslots this account removed: a sibling from before the
    /// removal cannot bring one back through R-MRG-12, where no item tells the copy is older.
    @Test func keyslotRemovedOnThisAccount_isNotBroughtBackByAMerge() throws {
        try withTemporaryDirectory { directory in
            var configuration = VaultConfiguration.insecureForTesting(rollbackState: .directory(directory + "/state"))
            configuration.rollbackPolicy = .refuse
            let vault = try makeVault(in: directory, name: "v.vault", configuration: configuration)
            try vault.write { try $0.addKeyslot(.password, credentials: .password("recovery")) }
            let siblingPath = directory + "/sibling.vault"
            try FileManager.default.copyItem(atPath: vault.path, toPath: siblingPath)
            try vault.write { _ = try $0.removeKeyslot(at: 1, rekey: nil) }
            let basePath = directory + "/base.vault"
            try FileManager.default.copyItem(atPath: vault.path, toPath: basePath)
            let sibling = try Vault(
                path: siblingPath,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            for n in 0..<4 { try sibling.write { try $0.set(makeDraft(service: "bump \(n)")) } }
            let open = { (path: String) in try VaultFileReader(path: path).open(with: .password(testPassword)) }
            let error = try #require(throws: VaultMergeError.self) {
                try vault.merge(try open(siblingPath), base: try open(basePath))
            }
            #expect(error.code == .notDescendant && error.reason.contains("removed"))
            #expect(throws: VaultFormatError(.wrongCredential)) {
                try VaultFileReader(path: vault.path).open(with: .password("recovery"))
            }
        }
    }
}
