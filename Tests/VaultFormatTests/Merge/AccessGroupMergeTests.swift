// vault: merging two copies of a format 2.0 vault keeps every limited recipient inside its own
// access group (Spec/merge.md R-MRG-16).

import Testing

@testable import VaultFormat

@Suite("Access groups through a merge (format 2.0)")
struct AccessGroupMergeTests {
    static let keyFile = Credentials(keyFile: SecretBytes(bytes: (0..<32).map { UInt8($0) }))

    /// A 2.0 vault with one `deploy` item and one `billing` item, and no access group yet.
    struct Copies {
        let deployRunner = RecipientIdentity.generate()
        let billingRunner = RecipientIdentity.generate()
        let base: [UInt8]
        var deployID = ItemID(high: 0, low: 0)
        var billingID = ItemID(high: 0, low: 0)

        init() throws {
            let random = SeededRandom(seed: "groupmerge")
            var writer = try KeyFileVaultStart(random: random, keyFile: AccessGroupMergeTests.keyFile).writer
            var ids: [ItemID] = []
            for group in ["deploy", "billing"] {
                var attributes = ItemAttributes(service: "\(group)-db", account: "ci")
                attributes.accessGroup = group
                ids.append(
                    try writer.put(
                        ItemDraft(
                            id: ItemID(random: random),
                            protectionClass: .whenUnlocked,
                            attributes: attributes,
                            secret: SecretBytes(utf8: "secret of \(group)")
                        ),
                        now: 0
                    )
                )
            }
            deployID = ids[0]
            billingID = ids[1]
            var next = try VaultWriter(updating: try VaultSnapshot.open(writer.encode(now: 0), with: keyFile))
            try next.upgradeToVersion2()
            base = try next.encode(now: 0)
        }

        /// The base with one recipient limited to `group`.
        func adding(_ identity: RecipientIdentity, limitedTo group: String) throws -> [UInt8] {
            var writer = try VaultWriter(updating: try VaultSnapshot.open(base, with: keyFile))
            try writer.addRecipient(Recipient(key: identity.recipient, name: group), limitedTo: group)
            return try writer.encode(now: 0)
        }
    }

    static func merged(ours: [UInt8], theirs: [UInt8], base: [UInt8]) throws -> [UInt8] {
        let result = try VaultMerge.merge(
            ours: try VaultSnapshot.open(ours, with: keyFile),
            theirs: try VaultSnapshot.open(theirs, with: keyFile),
            base: try VaultSnapshot.open(base, with: keyFile)
        )
        return try result.writer.encode(now: 0)
    }

    /// Two branches each gave a different group key domain 1 (the lowest free one). Carrying
    /// theirs' `deploy` stanza (domain 1) into ours' header, where domain 1 is `billing`, would hand
    /// the `deploy` runner the `billing` key: the merge refuses instead.
    @Test func sameDomainForTwoGroups_isRefused() throws {
        let copies = try Copies()
        let ours = try copies.adding(copies.billingRunner, limitedTo: "billing")
        let theirs = try copies.adding(copies.deployRunner, limitedTo: "deploy")
        #expect(throws: VaultMergeError(.accessGroupsDiffer)) {
            _ = try Self.merged(ours: ours, theirs: theirs, base: copies.base)
        }
        #expect(throws: VaultMergeError(.accessGroupsDiffer)) {
            _ = try Self.merged(ours: theirs, theirs: ours, base: copies.base)
        }
    }

    /// R2-GRP-3 compares names byte for byte: "café" with a precomposed é and with e + U+0301
    /// are two groups, so two branches that gave them both domain 1 are refused, as for any two
    /// groups. (String's `==` calls them equal; before, the merge carried theirs' stanza into a
    /// domain whose group is the other spelling.)
    @Test func twoSpellingsOfOneName_areTwoGroups() throws {
        let copies = try Copies()
        let ours = try copies.adding(copies.billingRunner, limitedTo: "caf\u{E9}")
        let theirs = try copies.adding(copies.deployRunner, limitedTo: "cafe\u{301}")
        #expect("caf\u{E9}" == "cafe\u{301}")
        #expect(throws: VaultMergeError(.accessGroupsDiffer)) {
            _ = try Self.merged(ours: ours, theirs: theirs, base: copies.base)
        }
    }

    /// Theirs added a `deploy` runner, ours did not: the merged file has the `deploy` group, its
    /// stanza and its records, opens for everyone, and the runner still reads `deploy` only.
    @Test func groupAddedOnOneSide_isCarried() throws {
        let copies = try Copies()
        let theirs = try copies.adding(copies.deployRunner, limitedTo: "deploy")
        for (ours, other) in [(copies.base, theirs), (theirs, copies.base)] {
            let file = try Self.merged(ours: ours, theirs: other, base: copies.base)
            let owner = try VaultSnapshot.open(file, with: Self.keyFile)
            #expect(owner.header.isVersion2 && owner.header.accessGroups.map(\.domain) == [1])
            #expect(try owner.verify().checked == 2)
            let runner = try VaultSnapshot.open(file, with: .identity(copies.deployRunner))
            for position in 0..<(try runner.index.count) {
                let id = try runner.index.entry(at: position).itemID
                if id == copies.deployID {
                    #expect(try runner.secret(at: position) == SecretBytes(utf8: "secret of deploy"))
                } else {
                    #expect(throws: VaultFormatError(.keyUnavailable)) { try runner.secret(at: position) }
                }
            }
        }
    }
}
