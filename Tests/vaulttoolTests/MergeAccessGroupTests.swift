// vaulttool tests: merging format 2.0 copies whose access-group recipients differ (Spec/merge.md R-MRG-15).

import Foundation
import Testing

@Suite("Merge of access-group copies")
struct MergeAccessGroupTests {
    /// One copy adds the first `deploy`-limited recipient (which reseals `deploy`'s records);
    /// the other adds an item. The merge used to write a file every open then refused as
    /// damaged; it now refuses, names the cause, and leaves the target as it was.
    @Test func firstLimitedRecipientOnOneSide_refusesAndWritesNothing() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("d1", ["--service", "db", "--access-group", "deploy"])
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
        let before = try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault")))
        let merge = try w.run(
            ["merge", "--password-file", "pw", "--base", "base.vault", "v.vault", "theirs.vault"]
        )
        #expect(merge.status == 1)
        #expect(merge.stderr.contains("differ in the access groups of limited recipients"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault"))) == before)
        #expect(try w.run(["verify", "--password-file", "pw", "v.vault"]).status == 0)
    }
}
