// vault: recipient stanzas through a merge (Spec/merge.md R-MRG-15).

import Testing
import VaultFormat
import VaultIO

@Suite("Merge: recipients")
struct MergeRecipientTests {
    let alice = RecipientIdentity.generate()
    let bob = RecipientIdentity.generate()

    /// Changes `replica`'s recipients without a rekey, as one machine would.
    func change(_ replica: inout Replica, _ edit: (inout VaultWriter) throws -> Void) throws {
        var writer = try VaultWriter(updating: replica.open())
        try writer.upgradeToVersion12()
        try edit(&writer)
        replica.bytes = try writer.encode(now: MergeClock.end)
    }

    func names(_ replica: Replica) throws -> [String] { try replica.open().recipients().map(\.name) }

    /// A recipient added on one side survives a merge, in either direction, and opens the result.
    @Test(arguments: [false, true])
    func addedOnOneSide_isKept(threeWay: Bool) throws {
        let base = try Replica.empty()
        var theirs = base
        try change(&theirs) { try $0.addRecipient(Recipient(key: alice.recipient, name: "alice")) }
        let (intoOurs, report) = try merged(base, theirs, base: threeWay ? base : nil)
        #expect(try names(intoOurs) == ["alice"])
        #expect(report.recipientChanges == 1)
        #expect(report.changesOurs)
        #expect(try VaultSnapshot.open(intoOurs.bytes, with: .identity(alice)).keys.hasMasterKey)
        let (intoTheirs, back) = try merged(theirs, base, base: threeWay ? base : nil)
        #expect(try names(intoTheirs) == ["alice"])
        #expect(back.recipientChanges == 0)
    }

    /// Both sides added different recipients: the union, ours first.
    @Test func addedOnBothSides_isTheUnion() throws {
        var ours = try Replica.empty()
        var theirs = ours
        try change(&ours) { try $0.addRecipient(Recipient(key: alice.recipient, name: "alice")) }
        try change(&theirs) { try $0.addRecipient(Recipient(key: bob.recipient, name: "bob")) }
        #expect(try names(merged(ours, theirs).0) == ["alice", "bob"])
        #expect(try names(merged(theirs, ours).0) == ["bob", "alice"])
    }

    /// Three-way: a recipient removed on one side (even without a rekey) is not brought back by
    /// the side that did not touch it.
    @Test func removedSinceTheAncestor_staysRemoved() throws {
        var base = try Replica.empty()
        try change(&base) {
            try $0.addRecipient(Recipient(key: alice.recipient, name: "alice"))
            try $0.addRecipient(Recipient(key: bob.recipient, name: "bob"))
        }
        var ours = base
        try change(&ours) { try $0.removeRecipient(at: 0) }
        let (result, report) = try merged(ours, base, base: base)
        #expect(try names(result) == ["bob"])
        #expect(report.recipientChanges == 0)
        let (other, otherReport) = try merged(base, ours, base: base)
        #expect(try names(other) == ["bob"])
        #expect(otherReport.recipientChanges == 1)
    }
}
