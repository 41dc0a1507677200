// vaulttool tests: `verify` with the master key reads every recipient's key and name
// (Spec/cli.md 4.3, R12-RCP-4), driving the built binary on the damage fixtures.

import Foundation
import Testing
import VaultTestSupport

@Suite("verify: recipients' stanzas")
struct VerifyRecipientsTests {
    /// A workspace holding `files` of `Fixtures/v2-damage`, identity files at mode 0600.
    private func workspace(_ files: [String]) throws -> Workspace {
        let w = try Workspace()
        for name in files {
            try Data(try FixtureRunner.bytes(name, version: FixtureCatalogV2Damage.folder)).write(
                to: URL(fileURLWithPath: w.file(name))
            )
            if name.hasSuffix(".identity") {
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: w.file(name))
            }
        }
        return w
    }

    /// The runner wrapped its own keys to mallory's key in a new stanza, with an info it cannot
    /// seal. Before, `verify` said "ok: 5 items verified" and only `recipients ls` told.
    @Test func stanzaAddedByALimitedRecipient_failsTheOwnersVerify() throws {
        let vault = "stanza_limited_for_another_key.vault"
        let w = try workspace([vault, "v2d_two_groups.vault", "runner.identity", "mallory.identity"])
        let owner = try w.run(["verify", "--password-file", "pw", vault])
        #expect(owner.status == 4)
        #expect(
            owner.stderr
                == "Error: A recipient of \(vault) cannot be read (a recipient stanza does not open with the master "
                + "key); 'vaulttool recipients rm --unreadable \(vault)' removes such recipients and rekeys\n"
        )
        // The same check on the vault before the edit passes.
        let pristine = try w.run(["verify", "--password-file", "pw", "v2d_two_groups.vault"])
        #expect(pristine.status == 0, "\(pristine.stderr)")
        #expect(pristine.stdout == "ok: 5 items verified, generation 1\n")
        // A limited recipient cannot read any info, so its verify checks its items only.
        for identity in ["runner.identity", "mallory.identity"] {
            let limited = try w.run(["verify", "--identity", identity, vault])
            #expect(limited.status == 0, "\(limited.stderr)")
            #expect(limited.stdout.hasPrefix("ok: 2 items verified"))
        }
    }
}
