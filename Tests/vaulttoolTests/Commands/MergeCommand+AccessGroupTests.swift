// vaulttool tests: merging format 2.0 copies whose access-group recipients differ (Spec/merge.md R-MRG-15).

import Foundation
import Testing

@Suite("Merge of access-group copies")
struct MergeAccessGroupTests {
    /// One copy adds the first `deploy`-limited recipient (which reseals `deploy`'s records);
    /// the other adds a `deploy` item. The merge used to write a file that every open then
    /// refused as damaged. Now (R-MRG-16) the group is added to ours and ours' `deploy` item is
    /// sealed into its domain: the runner reads both `deploy` items and nothing else.
    @Test func firstLimitedRecipientOnOneSide_mergesIntoAReadableVault() throws {
        let w = try Workspace()
        try w.makeVault(format: "1.1")
        try w.set("d1", ["--service", "db", "--access-group", "deploy"])
        try w.set("b1", ["--service", "bank", "--access-group", "billing"])
        let migrate = try w.run(["migrate", "--to", "2.0", "--password-file", "pw"] + Workspace.fastKDF + ["v.vault"])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let runner = try w.run(["keygen", "ci.id"]).stdout.trimmingCharacters(in: .newlines)
        try FileManager.default.copyItem(atPath: w.file("v.vault"), toPath: w.file("base.vault"))
        try FileManager.default.copyItem(atPath: w.file("v.vault"), toPath: w.file("theirs.vault"))
        // The other copy is changed on another machine (its own rollback record).
        let add = try w.run(
            ["recipients", "add", "--password-file", "pw", "--recipient", runner, "--name", "ci"]
                + ["--access-group", "deploy", "theirs.vault"],
            environment: ["XDG_STATE_HOME": w.file("other-machine")]
        )
        #expect(add.status == 0, "\(add.stderr)")
        try w.set("d9", ["--service", "db9", "--access-group", "deploy"])
        let merge = try w.run(
            ["merge", "--password-file", "pw", "--base", "base.vault", "v.vault", "theirs.vault"]
        )
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(try w.run(["verify", "--password-file", "pw", "v.vault"]).status == 0)
        for (service, secret) in [("db", "d1"), ("db9", "d9")] {
            let get = try w.run(["get", "--identity", "ci.id", "--service", service, "v.vault"])
            #expect(get.status == 0, "\(service): \(get.stderr)")
            #expect(get.stdout.hasPrefix(secret))
        }
        let bank = try w.run(["get", "--identity", "ci.id", "--service", "bank", "v.vault"])
        #expect(bank.status == 2 && !bank.stdout.contains("b1"))
        let owner = try w.run(["get", "--password-file", "pw", "--service", "bank", "v.vault"])
        #expect(owner.status == 0 && owner.stdout.hasPrefix("b1"))
    }
}
