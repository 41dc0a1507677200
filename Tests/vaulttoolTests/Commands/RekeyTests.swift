// vaulttool tests: `rekey` and the rekeying `passwd` actions (issue 9 §1; Spec/cli.md 4.5.1, 4.11).

import Foundation
import Glibc
import Testing
import VaultTestSupport

@Suite("Rekey command")
struct RekeyCommandTests {
    /// Writes 32 random bytes: a machine's device secret.
    private func writeDeviceSecret(_ w: Workspace, _ name: String) throws {
        try Data(SystemRandom().bytes(32)).write(to: URL(fileURLWithPath: w.file(name)))
        #expect(chmod(w.file(name), 0o600) == 0)  // the library refuses a looser device secret (L-DS-3)
    }

    private func bytes(_ w: Workspace, _ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: w.file(name))))
    }

    /// Issue 9 §1 through the CLI: password A, keep a copy, `passwd` to B, add an item with B.
    /// With `--no-rekey` (the old behaviour) the copy and A read the new item; by default they do not.
    @Test(arguments: [false, true])
    func passwd_oldCopyAndOldPassword_readNewItemsOnlyWithNoRekey(_ noRekey: Bool) throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("old item", ["--service", "before"])
        let oldCopy = try bytes(w, "v.vault")
        try w.write("b", "password B")
        let change = try w.run(
            ["passwd", "--password-file", "pw", "--new-password-file", "b"] + (noRekey ? ["--no-rekey"] : [])
                + ["v.vault"]
        )
        #expect(change.status == 0, "\(change.stderr)")
        #expect(change.stdout.contains("replaced the master key") != noRekey)
        let add = try w.run(["set", "--password-file", "b", "--service", "after", "v.vault"], stdin: "new item")
        #expect(add.status == 0, "\(add.stderr)")

        let stolen = try OldCopyAttack.secrets(
            current: try bytes(w, "v.vault"),
            oldCopy: oldCopy,
            oldCredentials: .password(Workspace.password)
        )
        if noRekey {
            #expect(stolen?.contains("new item") == true)
        } else {
            #expect(stolen == nil)
        }
        #expect(try w.run(["get", "--password-file", "b", "--service", "before", "v.vault"]).stdout == "old item")
        #expect(try w.run(["get", "--password-file", "b", "--service", "after", "v.vault"]).stdout == "new item")
    }

    /// `--remove-keyslot` of a recovery slot rekeys: the recovery password and an old copy read nothing new.
    @Test func passwd_removeKeyslot_rekeys() throws {
        let w = try Workspace()
        try w.makeVault()
        let recovery = try w.run(
            ["passwd", "--password-file", "pw", "--add-recovery"] + Workspace.fastKDF + ["v.vault"]
        )
        let code = String(recovery.stdout.split(separator: " ").last!.dropLast())
        let oldCopy = try bytes(w, "v.vault")
        let remove = try w.run(["passwd", "--password-file", "pw", "--remove-keyslot", "1", "v.vault"])
        #expect(remove.status == 0, "\(remove.stderr)")
        #expect(remove.stdout.hasPrefix("Removed keyslot #1; replaced the master key (0 items sealed again)."))
        try w.set("new item", ["--service", "after"])
        #expect(
            try OldCopyAttack.secrets(
                current: try bytes(w, "v.vault"),
                oldCopy: oldCopy,
                oldCredentials: .password(code)
            ) == nil
        )
    }

    /// `rekey` keeps every item and every slot whose credential it is given; refuses, naming
    /// them, for the others; `--drop-keyslots` removes them.
    @Test func rekey_keepsItems_andRefusesSlotsWithoutTheirCredential() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("one", ["--service", "a"])
        try w.set("two", ["--service", "b", "--accessibility", "always"])
        let recovery = try w.run(
            ["passwd", "--password-file", "pw", "--add-recovery"] + Workspace.fastKDF + ["v.vault"]
        )
        try w.write("code", String(recovery.stdout.split(separator: " ").last!.dropLast()))
        let before = try bytes(w, "v.vault")

        let refused = try w.run(["rekey", "--password-file", "pw", "v.vault"])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.hasPrefix(
                "Error: Keyslot #1 (password) cannot be rewrapped: no credential given opens it; give the credentials"
            ),
            "\(refused.stderr)"
        )
        #expect(try bytes(w, "v.vault") == before)

        let kept = try w.run(["rekey", "--password-file", "pw", "--keep-password-file", "code", "v.vault"])
        #expect(kept.stdout == "Rekeyed v.vault: Replaced the master key (2 items sealed again).\n", "\(kept.stderr)")
        for password in ["pw", "code"] {
            #expect(try w.run(["get", "--password-file", password, "--service", "a", "v.vault"]).stdout == "one")
            #expect(try w.run(["get", "--password-file", password, "--service", "b", "v.vault"]).stdout == "two")
        }
        #expect(try w.run(["verify", "--password-file", "pw", "v.vault"]).status == 0)

        let dropped = try w.run(["rekey", "--password-file", "pw", "--drop-keyslots", "v.vault"])
        #expect(
            dropped.stdout == "Rekeyed v.vault: Replaced the master key (2 items sealed again; removed keyslot #1).\n"
        )
        #expect(try w.run(["get", "--password-file", "code", "--service", "a", "v.vault"]).status == 3)
    }

    /// Another device's ThisDeviceOnly items: `rekey` refuses without `--drop-foreign`, and this
    /// device's own items and device keyslot survive.
    @Test func rekey_refusesForeignItems_withoutDropForeign() throws {
        let w = try Workspace()
        try w.makeVault()
        try writeDeviceSecret(w, "mine")
        try writeDeviceSecret(w, "theirs")
        let device = ["--accessibility", "whenUnlockedThisDeviceOnly"]
        try w.set("theirs", ["--service", "t", "--device-secret-file", "theirs"] + device)
        try w.set("mine", ["--service", "m", "--device-secret-file", "mine"] + device)
        let before = try bytes(w, "v.vault")

        let refused = try w.run(["rekey", "--password-file", "pw", "--device-secret-file", "mine", "v.vault"])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.hasPrefix("Error: 1 ThisDeviceOnly item cannot be sealed again here"),
            "\(refused.stderr)"
        )
        #expect(refused.stderr.contains("--drop-foreign"))
        #expect(try bytes(w, "v.vault") == before)

        let dropped = try w.run(
            ["rekey", "--password-file", "pw", "--device-secret-file", "mine", "--drop-foreign", "v.vault"]
        )
        #expect(
            dropped.stdout
                == "Rekeyed v.vault: Replaced the master key (1 item sealed again; deleted 1 other device's item).\n",
            "\(dropped.stderr)"
        )
        let get = try w.run([
            "get", "--password-file", "pw", "--device-secret-file", "mine", "--service", "m", "v.vault",
        ])
        #expect(get.stdout == "mine")
        let list = try w.run(["list", "--json", "--password-file", "pw", "--device-secret-file", "theirs", "v.vault"])
        #expect((try list.json()["items"] as? [Any])?.count == 0)
    }

    @Test func rekeyOptions_withAnActionThatDoesNotRekey_areAUsageError() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write("key", String(repeating: "k", count: 64))
        let result = try w.run(["passwd", "--password-file", "pw", "--add-key-file", "key", "--no-rekey", "v.vault"])
        #expect(result.status == 64)
        let drop = try w.run(["passwd", "--password-file", "pw", "--add-key-file", "key", "--drop-foreign", "v.vault"])
        #expect(drop.status == 64)
    }

    @Test func rekeyHelp() throws {
        let result = try Tool.run(["rekey", "--help"])
        #expect(result.status == 0)
        #expect(
            result.stdout == #"""
                OVERVIEW: Replace the master key and seal every item again.

                Draws a new master key, seals every item again under it and rewraps every keyslot that is
                kept, in one atomic write. Afterwards an old copy of the vault, opened with a password or key
                file that was removed or changed, no longer opens anything written after the rekey.

                A keyslot holds the master key sealed under its own credential, so only that credential can
                rewrap it: a keyslot is kept when the credential given, a --keep-password-file password, this
                device's secret or this machine's TPM (a TPM2 keyslot) opens it. Any other keyslot makes
                rekey refuse (the error lists them) unless --drop-keyslots removes them. Other devices'
                ThisDeviceOnly items cannot be sealed again and could never be read after a rekey: rekey
                refuses while any exist, unless --drop-foreign deletes them. Give this device's secret
                (--device-secret-file) to keep its own ThisDeviceOnly items and device keyslots. Copies made
                before the rekey still open with the credentials they had and show what they hold: delete
                them.

                USAGE: vaulttool rekey [<options>] <vault>

                ARGUMENTS:
                  <vault>                 The vault file.

                OPTIONS:
                  --keep-password-file <file>
                                          Also keep the keyslots this password opens (for example a recovery password).
                  --drop-keyslots         Remove the keyslots that no credential given opens, instead of refusing.
                  --drop-foreign          Delete other devices' ThisDeviceOnly items, which cannot be sealed again, instead of refusing.
                  --password-file <file>  Read the password from a file (one trailing newline dropped).
                  --password-stdin        Read the password from standard input (one trailing newline dropped).
                  --password-env <name>   The password is the value of environment variable <name>.
                  --password-file-env <name>
                                          Read the password from the file named by environment variable <name>.
                  --key-file <file>       Use a key file as (part of) the credential.
                  --device-secret-file <file>
                                          This machine's 32-byte device secret.
                  --identity <file>       An identity file (format 1.2 recipients).
                  --tpm2                  Unseal a TPM2 keyslot with this machine's TPM (PIN from VAULTTOOL_TPM2_PIN_FILE or a prompt).
                  --tpm2-tcti <tcti>      The TPM to use (default $VAULT_TPM2_TCTI, else device:/dev/tpmrm0).
                  --accept-rollback       Write even when the vault is older than one seen before here, and record it as the newest.
                  -h, --help              Show help information.

                EXAMPLES:
                  vaulttool rekey --password-file pw app.vault
                  vaulttool rekey --password-file pw --keep-password-file recovery-pw --drop-foreign app.vault

                """#
        )
    }
}
