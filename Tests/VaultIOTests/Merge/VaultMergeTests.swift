// vault: merge rules, one at a time (Spec/merge.md).

import Foundation
import Testing
import VaultFormat
import VaultIO

@Suite("Merge")
struct MergeTests {
    let t = MergeClock.start

    /// A base with items "one" and "two", and two replicas of it.
    func replicas() throws -> (base: Replica, ids: [ItemID]) {
        var base = try Replica.empty()
        let ids = [ItemID(random: SystemRandom()), ItemID(random: SystemRandom())]
        try base.set(ids[0], service: "one", secret: "one v1", at: t)
        try base.set(ids[1], service: "two", secret: "two v1", at: t)
        return (base, ids)
    }

    // R-MRG-1
    @Test func differentVaults_refuseWithTypedError() throws {
        let a = try Replica.empty()
        let b = try Replica.empty()
        #expect(throws: VaultMergeError(.differentVaults)) { try merged(a, b) }
        #expect(throws: VaultMergeError(.differentVaults)) { try merged(a, a, base: b) }
    }

    // R-MRG-7, R-MRG-8
    @Test(arguments: [false, true])
    func bothEdited_newerWins_andLoserIsKeptAsFlaggedCopy(threeWay: Bool) throws {
        let (base, ids) = try replicas()
        var ours = base
        var theirs = base
        try ours.set(ids[0], service: "one", secret: "ours", at: t + 10)
        try theirs.set(ids[0], service: "one", secret: "theirs", at: t + 20)
        let (result, report) = try merged(ours, theirs, base: threeWay ? base : nil)
        let conflict = try #require(report.conflicts.first)
        #expect(report.conflicts.count == 1)
        #expect(conflict.kind == .bothChanged && conflict.winner == .theirs && conflict.itemID == ids[0])
        let items = try result.open().items(includeSecrets: true)
        #expect(items.count == 3)
        let winner = try #require(items.first { $0.entry.itemID == ids[0] })
        #expect(winner.secret!.utf8String == "theirs")
        let copy = try #require(items.first { $0.entry.itemID == conflict.copyID })
        #expect(copy.secret!.utf8String == "ours")
        #expect(copy.attributes.account == "alice (conflict \(conflict.copyID!.description.suffix(8)))")
        let marker = try #require(copy.attributes.preserved.first { $0.tag == VaultMerge.conflictMarkerTag })
        #expect(Array(marker.value.prefix(16)) == ids[0].bytes)
        #expect(copy.attributes.modificationDate == t + 10)
        _ = try result.open().verify()
        // The same conflict merged again (or from the other side) makes no second copy.
        #expect(try merged(result, ours).0.contents() == result.contents())
        #expect(try merged(theirs, ours, base: threeWay ? base : nil).0.contents() == result.contents())
    }

    // R-MRG-4, R-MRG-5: the ancestor, not the clock, decides one-sided changes: ours' clock is
    // behind, and theirs' edit is older than ours' deletion. (A change of theirs dated before the
    // ancestor's own version is refused by R-MRG-17, MergeDescentTests.)
    @Test func threeWay_oneSidedChangesWinWhateverTheirClocksSay() throws {
        let (base, ids) = try replicas()
        var ours = base
        var theirs = base
        try ours.delete(ids[0], at: t - 50_000)  // a machine whose clock is behind
        try theirs.set(ids[1], service: "two", secret: "two v2", at: t + 1)
        let (result, report) = try merged(ours, theirs, base: base)
        #expect(report.conflicts.isEmpty)
        let contents = try result.contents()
        #expect(contents[ids[0]] == nil)
        #expect(contents[ids[1]]?.contains("two v2") == true)
        #expect(try result.open().index.deletions.contains { $0.itemID == ids[0] })
        #expect(report.updated == 1 && report.deleted == 0 && report.added == 0)
    }

    // R-MRG-7: deletion against a concurrent edit.
    @Test func threeWay_editNewerThanDeletion_keepsTheEdit_andListsTheConflict() throws {
        let (base, ids) = try replicas()
        var ours = base
        var theirs = base
        try ours.delete(ids[0], at: t + 10)
        try theirs.set(ids[0], service: "one", secret: "edited later", at: t + 20)
        let (result, report) = try merged(ours, theirs, base: base)
        #expect(try result.contents()[ids[0]]?.contains("edited later") == true)
        #expect(report.conflicts.map(\.kind) == [.changedAndDeleted])
        #expect(report.conflicts.first?.winner == .theirs)

        // The other way round, the newer deletion wins and the edit is listed.
        var later = base
        try later.delete(ids[0], at: t + 30)
        let (deleted, report2) = try merged(theirs, later, base: base)
        #expect(try deleted.contents()[ids[0]] == nil)
        #expect(report2.conflicts.map(\.kind) == [.changedAndDeleted])
        #expect(report2.conflicts.first?.winner == nil)
    }

    // R-MRG-9: a deletion outlived by a newer edit still outdates older versions met later.
    @Test func deletionTimeSurvivesInAShadow_andOutdatesOlderVersions() throws {
        let (base, ids) = try replicas()
        var old = base
        var deleter = base
        var newer = base
        try old.set(ids[0], service: "one", secret: "old edit", at: t + 10)
        try deleter.delete(ids[0], at: t + 20)
        try newer.set(ids[0], service: "one", secret: "new edit", at: t + 30)
        let (dn, _) = try merged(deleter, newer)
        #expect(try dn.open().index.deletions.contains { $0.itemID == VaultMerge.shadowID(of: ids[0]) })
        let (all, _) = try merged(dn, old)
        let versions = try all.versions().filter { $0.origin == ids[0] }
        #expect(versions.map(\.secret) == ["new edit"])
        // Met in the other order, the copy of the old edit is removed again.
        let (on, _) = try merged(old, newer)
        #expect(try on.versions().filter { $0.origin == ids[0] }.count == 2)
        #expect(try merged(on, deleter).0.contents() == all.contents())
    }

    // A deletion record theirs holds for an item ours never had still reaches ours, so that a
    // third copy that holds the item cannot bring it back through ours.
    @Test func deletionRecordsAloneAreWorthAWrite() throws {
        let (base, _) = try replicas()
        var theirs = base
        var third = base
        let id = ItemID(random: SystemRandom())
        try third.set(id, service: "short-lived", secret: "x", at: t + 10)
        theirs = try merged(theirs, third).0
        try theirs.delete(id, at: t + 20)
        let ours = base
        let (result, report) = try merged(ours, theirs)
        #expect(report.changesOurs && report.added == 0 && report.otherChanges == 1)
        #expect(try result.open().index.deletions.contains { $0.itemID == id })
        #expect(try merged(result, third).0.contents()[id] == nil)
    }

    // R-MRG-10
    @Test func sameServiceAddedOnBothSides_keepsOneItem_andACopy() throws {
        let (base, _) = try replicas()
        var ours = base
        var theirs = base
        try ours.set(ItemID(random: SystemRandom()), service: "shared", secret: "from ours", at: t + 10)
        try theirs.set(ItemID(random: SystemRandom()), service: "shared", secret: "from theirs", at: t + 20)
        let (result, report) = try merged(ours, theirs)
        #expect(report.conflicts.map(\.kind) == [.samePrimaryKey])
        _ = try result.open().verify()
        let shared = try result.versions().filter { $0.service == "shared" }
        #expect(Set(shared.map(\.secret)) == ["from ours", "from theirs"])
        #expect(try merged(theirs, ours).0.contents() == result.contents())
    }

    // R-MRG-13: another device's records travel as ciphertext.
    @Test func otherDevicesItems_areCarriedAsCiphertext() throws {
        let (base, _) = try replicas()
        let device = DeviceSecret(secret: SecretBytes(bytes: Array(repeating: 7, count: 32)))
        var onDevice = base
        onDevice.credentials = .password(testPassword, deviceSecret: device)
        try onDevice.set(
            ItemID(random: SystemRandom()),
            service: "device",
            secret: "bound",
            at: t + 10,
            protection: .whenUnlockedThisDeviceOnly
        )
        var elsewhere = base
        try elsewhere.set(ItemID(random: SystemRandom()), service: "laptop", secret: "x", at: t + 20)
        var theirs = onDevice
        theirs.credentials = .password(testPassword)  // opened where the device secret is not held
        let (result, report) = try merged(elsewhere, theirs)
        #expect(report.conflicts.isEmpty && report.added == 1)
        var onDeviceAgain = result
        onDeviceAgain.credentials = onDevice.credentials
        #expect(try onDeviceAgain.versions().contains { $0.service == "device" && $0.secret == "bound" })
        #expect(try onDeviceAgain.versions().contains { $0.service == "laptop" })
    }

    // R-MRG-11, R-MRG-12, R-MRG-14, through the file and the write lock.
    @Test func vaultMerge_keepsTheRekeyedSidesKey_andARetiredPasswordOpensNothing() throws {
        try withTemporaryDirectory { directory in
            let ours = try makeVault(in: directory, name: "ours.vault")
            try ours.write { try $0.set(makeDraft(service: "shared")) }
            let theirsPath = directory + "/theirs.vault"
            try FileManager.default.copyItem(atPath: ours.path, toPath: theirsPath)
            try ours.write { try $0.set(makeDraft(service: "ours only")) }
            let theirs = try Vault(
                path: theirsPath,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            try theirs.write { try $0.set(makeDraft(service: "theirs 1")) }
            try theirs.write { try $0.set(makeDraft(service: "theirs 2")) }
            try theirs.write { try $0.replaceKeyslot(at: 0, kind: .password, credentials: .password("new pass")) }
            let theirsSnapshot = try VaultFileReader(path: theirsPath).open(with: .password("new pass"))

            // Two different master keys: the merge does not pick one by itself.
            #expect(throws: VaultMergeError(.masterKeysDiffer)) { try ours.merge(theirsSnapshot) }
            let report = try ours.merge(theirsSnapshot, options: MergeOptions(masterKey: .theirs))
            #expect(report.keysFrom == .theirs && report.keyslotsFrom == .theirs)
            #expect(report.generation == theirsSnapshot.header.generation + 1)
            #expect(throws: VaultFormatError(.wrongCredential)) {
                try VaultFileReader(path: ours.path).open(with: .password(testPassword))
            }
            let reopened = try Vault(
                path: ours.path,
                credentials: .password("new pass"),
                configuration: testConfiguration
            )
            let services = try reopened.read { try $0.items(includeSecrets: false).map(\.attributes.service) }
            #expect(Set(services) == ["shared", "ours only", "theirs 1", "theirs 2"])
            // The merging Vault adopted the kept key and keeps writing.
            try ours.write { try $0.set(makeDraft(service: "after merge")) }
            #expect(try reopened.read { try $0.index.count } == 5)
            // Merging the same file again changes nothing and writes nothing.
            let generation = try reopened.read { $0.header.generation }
            #expect(try ours.merge(theirsSnapshot).changesOurs == false)  // same key now: no choice needed
            #expect(try reopened.read { $0.header.generation } == generation)
        }
    }

    // R-MRG-11: a copy under a retired master key (an old copy put on a branch by someone who
    // kept a removed credential, with its generation raised) never brings that key back.
    @Test func retiredMasterKey_isNeverAdopted_whateverItsGeneration() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, name: "v.vault")
            try vault.write { try $0.set(makeDraft(service: "old")) }
            let oldPath = directory + "/old.vault"
            try FileManager.default.copyItem(atPath: vault.path, toPath: oldPath)
            let forkPath = directory + "/fork.vault"
            try FileManager.default.copyItem(atPath: vault.path, toPath: forkPath)
            let basePath = directory + "/base.vault"
            try vault.write { try $0.rekey(RekeyOptions(credentials: [.password(testPassword)])) }
            try FileManager.default.copyItem(atPath: vault.path, toPath: basePath)
            try vault.write { try $0.set(makeDraft(service: "new")) }
            let old = try Vault(path: oldPath, credentials: .password(testPassword), configuration: testConfiguration)
            for n in 0..<5 { try old.write { try $0.set(makeDraft(service: "bump \(n)")) } }
            let open = { (path: String) in try VaultFileReader(path: path).open(with: .password(testPassword)) }
            #expect(try open(oldPath).header.generation > open(vault.path).header.generation)
            #expect(throws: VaultMergeError(.masterKeysDiffer)) { try vault.merge(try open(oldPath)) }
            #expect(throws: VaultMergeError(.masterKeysDiffer)) {
                try vault.merge(try open(oldPath), base: try open(basePath))
            }
            // Ours rekeyed since the ancestor (the copy both descend from): ours' key is kept
            // without asking, and the old copy's items are sealed again under it.
            let report = try vault.merge(try open(oldPath), base: try open(forkPath))
            #expect(report.keysFrom == .ours)
            // Theirs' five changes were made under the retired key: applied, and listed for review.
            #expect(report.changedUnderRetiredKey.count == 5 && report.added == 5)
            let current = try open(vault.path)
            #expect(current.keys.master!.secret == (try open(basePath)).keys.master!.secret)
        }
    }

    // R-MRG-12: a keyslot removed on one side is not added back.
    @Test func threeWay_keyslotsChangedOnOneSideOnly_areTaken() throws {
        try withTemporaryDirectory { directory in
            let ours = try makeVault(in: directory, name: "ours.vault")
            try ours.write { try $0.addKeyslot(.password, credentials: .password("recovery")) }
            let basePath = directory + "/base.vault"
            let theirsPath = directory + "/theirs.vault"
            try FileManager.default.copyItem(atPath: ours.path, toPath: basePath)
            try FileManager.default.copyItem(atPath: ours.path, toPath: theirsPath)
            try ours.write { try $0.set(makeDraft(service: "ours")) }
            let theirs = try Vault(
                path: theirsPath,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            try theirs.write { _ = try $0.removeKeyslot(at: 1, rekey: nil) }
            let open = { (path: String) in try VaultFileReader(path: path).open(with: .password(testPassword)) }
            let report = try ours.merge(try open(theirsPath), base: try open(basePath))
            #expect(report.keyslotsFrom == .theirs)
            #expect(try VaultFileReader(path: ours.path).header().keyslots.count == 1)
        }
    }

    @Test func mergeIntoNewFile_leavesInputsAlone_andRefusesAnExistingFile() throws {
        let (base, ids) = try replicas()
        var theirs = base
        try theirs.set(ids[1], service: "two", secret: "two v2", at: t + 5)
        try withTemporaryDirectory { directory in
            let out = directory + "/merged.vault"
            let report = try Vault.merge(
                ours: base.open(),
                theirs: theirs.open(),
                creating: out,
                configuration: testConfiguration
            )
            #expect(report.updated == 1)
            let merged = Replica(bytes: try readFile(out))
            #expect(try merged.contents()[ids[1]] == theirs.contents()[ids[1]])
            // Two-way, the older version cannot be told from a concurrent one: it is kept as a copy.
            #expect(
                try merged.versions().filter { $0.origin == ids[1] }.map(\.secret).sorted() == ["two v1", "two v2"]
            )
            #expect(
                try Replica(bytes: try readFile(out)).open().header.generation == theirs.open().header.generation + 1
            )
            #expect(throws: VaultIOError.self) {
                try Vault.merge(
                    ours: base.open(),
                    theirs: theirs.open(),
                    creating: out,
                    configuration: testConfiguration
                )
            }
        }
    }
}
