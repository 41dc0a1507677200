// vault: the key of an access group is bound to the group's name, so two copies of one vault (git
// branches) that gave domain 1 to different groups do not share that key (Spec/threat-model.md
// 3.13.1, R2-KEY-1).

import Testing

@testable import VaultFormat

@Suite("Access groups on two branches (format 2.0)")
struct AccessGroupBranchTests {
    /// Branch A gives `billing` domain 1, branch B gives `deploy` domain 1 (each the lowest free
    /// domain). B's `deploy` runner, with B's file for its keys and A's file in hand, would open A's
    /// `billing` item unless the group key is bound to the group's name: `GK(1, "deploy")` is not
    /// `GK(1, "billing")`, so the record does not open.
    @Test func domainReusedOnAnotherBranch_doesNotShareTheGroupKey() throws {
        let copies = try AccessGroupMergeTests.Copies()
        let branchA = try copies.adding(copies.billingRunner, limitedTo: "billing")
        let branchB = try copies.adding(copies.deployRunner, limitedTo: "deploy")
        let runnerKeys = try VaultSnapshot.open(branchB, with: .identity(copies.deployRunner)).keys
        let owner = try VaultSnapshot.open(branchA, with: AccessGroupMergeTests.keyFile)
        let position = try #require(try owner.index.positionsByID().position(of: copies.billingID))
        let entry = try owner.index.entry(at: position)
        #expect(entry.domain == 1)
        #expect(runnerKeys.groupDomains == [1])
        #expect(throws: VaultFormatError.self) {
            _ = try RecordCodec.openDraft(
                try owner.recordBytes(at: position),
                entry: entry,
                vaultID: owner.header.vaultID,
                keys: runnerKeys
            )
        }
    }
}
