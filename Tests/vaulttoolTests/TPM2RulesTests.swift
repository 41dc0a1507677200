// vaulttool: the rules of TPM2 keyslots across commands (Spec/tpm2.md L-TPM-2, R-TPM-4, R-TPM-5;
// Spec/cli.md section 3), each found by an outside attack on the first version.

import Foundation
import Testing
import VaultTestSupport

@Suite("TPM2 keyslots: rules across commands", .serialized)
struct TPM2RulesTests {
    /// L-TPM-2 on the header a write produces: a rekey that drops the password keyslot is
    /// refused like the removal of that keyslot.
    @Test func aRekeyThatWouldLeaveOnlyTheTPM_isRefused() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        try vaultWithTPM2Slot(w, tpm)
        try w.write("key", String(repeating: "k", count: 40))
        #expect(try w.run(["passwd", "--password-file", "pw", "--add-key-file", "key", "v.vault"]).status == 0)
        for command in [
            ["rekey", "--tpm2", "--drop-keyslots", "v.vault"],
            ["passwd", "--tpm2", "--remove-key-file", "--drop-keyslots", "v.vault"],
        ] {
            let refused = try w.run(command, tpm: tpm)
            #expect(refused.status == 1, "\(command): \(refused.stderr)")
            #expect(refused.stderr.contains("The TPM would be the only way into the vault"))
        }
        let slots = try #require(try w.run(["inspect", "--json", "v.vault"]).json()["keyslots"] as? [[String: Any]])
        #expect(slots.map { $0["kind"] as? String } == ["password", "tpm2", "keyFile"])
    }

    /// L-TPM-2 for recipients: removing the last full recipient of a vault whose only keyslot
    /// left is a TPM2 keyslot is refused.
    @Test func removingTheLastRecipient_toLeaveOnlyTheTPM_isRefused() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        try vaultWithTPM2Slot(w, tpm, format: "1.1")
        let migrate = try w.run(["migrate", "--to", "1.2", "--password-file", "pw"] + Workspace.fastKDF + ["v.vault"])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let me = try w.run(["keygen", "me.id"]).stdout.trimmingCharacters(in: .newlines)
        let add = try w.run([
            "recipients", "add", "--password-file", "pw", "--recipient", me, "--name", "me", "v.vault",
        ])
        #expect(add.status == 0, "\(add.stderr)")
        let remove = try w.run(
            ["passwd", "--identity", "me.id", "--remove-keyslot", "0", "v.vault"],
            tpm: tpm
        )
        #expect(remove.status == 0, "\(remove.stderr)")
        let refused = try w.run(
            ["recipients", "rm", "--tpm2", "--name", "me", "v.vault"],
            tpm: tpm
        )
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("The TPM would be the only way into the vault"))
        #expect(try w.run(["get", "--identity", "me.id", "--service", "db", "v.vault"]).stdout == "s3cret")
    }

    /// R-TPM-4: bindings without a PIN are tried first, so neither a missing nor a wrong PIN
    /// hides them, and a wrong PIN costs one failure however many PIN bindings there are.
    @Test func aKeyslotWithoutAPIN_opensEvenWhenAnEarlierOneNeedsAPIN() throws {
        let (w, tpm) = try vaultWithPINSlot()
        let second = try w.run(
            ["passwd", "--password-file", "pw", "--add-tpm2", "--tpm2-pin", "v.vault"],
            tpm: tpm,
            pinFile: "pin"
        )
        #expect(second.status == 0, "\(second.stderr)")
        let before = try #require(try lockoutCounter(tpm))
        let wrong = try getWithTPM(w, tpm, pinFile: "wrong")
        #expect(wrong.status == 3)
        #expect(wrong.stderr.contains("Wrong TPM PIN"))
        #expect(try lockoutCounter(tpm) == before + 1)
        let third = try w.run(
            ["passwd", "--password-file", "pw", "--add-tpm2", "v.vault"],
            tpm: tpm
        )
        #expect(third.status == 0, "\(third.stderr)")
        for pinFile in [nil, "wrong"] {
            let get = try getWithTPM(w, tpm, pinFile: pinFile)
            #expect(get.status == 0, "\(String(describing: pinFile)): \(get.stderr)")
            #expect(get.stdout == "s3cret")
        }
        #expect(try lockoutCounter(tpm) == before + 1)
    }

    /// cli.md section 3: only --tpm2 asks for a PIN. A rekey without it tries the TPM for the
    /// keyslots without a PIN, and treats one with a PIN as a keyslot no credential opens.
    @Test func aRekeyWithoutTPM2_neverAsksForAPIN() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        try w.write("pin", "4711\n")
        try vaultWithTPM2Slot(w, tpm, ["--tpm2-pin"])
        let refused = try w.run(["rekey", "--password-file", "pw", "v.vault"], tpm: tpm)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("#1 (tpm2)"))
        #expect(!refused.stderr.contains("VAULTTOOL_TPM2_PIN_FILE"))
        let kept = try w.run(
            ["rekey", "--password-file", "pw", "--tpm2", "v.vault"],
            tpm: tpm,
            pinFile: "pin"
        )
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(try getWithTPM(w, tpm, pinFile: "pin").stdout == "s3cret")
    }

    /// R-MRG-12 with R-TPM-5: a three-way merge that takes theirs' keyslots takes the binding of
    /// theirs' TPM2 keyslot with them.
    @Test func aMergeThatTakesTheirKeyslots_takesTheirTPM2Binding() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        try w.makeVault(format: "1.1")
        try w.set("s3cret", ["--service", "db", "--account", "app"])
        try FileManager.default.copyItem(atPath: w.file("v.vault"), toPath: w.file("base.vault"))
        try FileManager.default.copyItem(atPath: w.file("v.vault"), toPath: w.file("theirs.vault"))
        let add = try w.run(
            ["passwd", "--password-file", "pw", "--add-tpm2", "theirs.vault"],
            environment: tpm.environment + ["XDG_STATE_HOME": w.file("other-machine")]
        )
        #expect(add.status == 0, "\(add.stderr)")
        try w.set("b", ["--service", "api", "--account", "app"])
        let merge = try w.run(["merge", "--password-file", "pw", "--base", "base.vault", "v.vault", "theirs.vault"])
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(try getWithTPM(w, tpm).stdout == "s3cret")
        #expect(try w.run(["verify", "--password-file", "pw", "v.vault"]).status == 0)
    }

    /// Spec/tpm2.md §7.4: the ESAPI's trace level prints the unsealed key and the PIN's
    /// authValue; vaulttool's process never lets it.
    @Test func aTraceLevelInTSS2_LOG_printsNothing() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        try w.write("pin", "4711\n")
        try vaultWithTPM2Slot(w, tpm, ["--tpm2-pin"])
        let get = try w.run(
            ["get", "--tpm2", "--service", "db", "v.vault"],
            environment: tpm.environment + ["VAULTTOOL_TPM2_PIN_FILE": w.file("pin"), "TSS2_LOG": "all+TRACE"]
        )
        #expect(get.status == 0)
        #expect(get.stdout == "s3cret")
        #expect(get.stderr == "")
    }

    @Test func pcrListsThatAreEmptyOrRepeat_areUsageErrors() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        try w.makeVault(format: "1.1")
        for pcrs in ["", "7,7", "24", "7,"] {
            let add = try w.run(
                ["passwd", "--password-file", "pw", "--add-tpm2", "--tpm2-pcrs", pcrs, "v.vault"],
                tpm: tpm
            )
            #expect(add.status == 64, "'\(pcrs)': \(add.stderr)")
            let device = try w.run(
                ["device-secret", "init", "--tpm2", "--tpm2-pcrs", pcrs, w.file("ds-\(pcrs)")],
                tpm: tpm
            )
            #expect(device.status == 64, "'\(pcrs)': \(device.stderr)")
        }
        let create = try w.run(["create", "--tpm2", "new.vault"], tpm: tpm)
        #expect(create.status == 64)
    }

    /// R-TPM-4 across the opens of one command: a rekey opens the vault and then tries every
    /// candidate, a merge opens three files; the PIN is asked once and a wrong one costs one
    /// failure, and the refusal says what the TPM said.
    @Test func oneCommandSpendsAtMostOneWrongPIN_howeverManyOpensItMakes() throws {
        let (w, tpm) = try vaultWithPINSlot()
        var counter = try #require(try lockoutCounter(tpm))
        let rekey = try w.run(["rekey", "--tpm2", "--password-file", "pw", "v.vault"], tpm: tpm, pinFile: "wrong")
        #expect(rekey.status == 1)
        #expect(rekey.stderr.contains("wrong TPM PIN"), "\(rekey.stderr)")
        #expect(try lockoutCounter(tpm) == counter + 1)
        counter += 1
        for copy in ["base.vault", "theirs.vault"] {
            try FileManager.default.copyItem(atPath: w.file("v.vault"), toPath: w.file(copy))
        }
        let merge = try w.run(
            ["merge", "--tpm2", "--password-file", "pw", "--base", "base.vault", "v.vault", "theirs.vault"],
            tpm: tpm,
            pinFile: "wrong"
        )
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(try lockoutCounter(tpm) == counter + 1)
    }

    /// L-TPM-2 compares with the vault as the write found it: one that only TPM2 keyslots open
    /// (made so with --tpm2-only) stays writable, its keyslots included.
    @Test func aVaultMadeTPMOnlyOnPurpose_staysWritable() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        try vaultWithTPM2Slot(w, tpm)
        let second = try w.run(
            ["passwd", "--password-file", "pw", "--add-tpm2", "v.vault"],
            tpm: tpm
        )
        #expect(second.status == 0, "\(second.stderr)")
        let only = try w.run(
            ["passwd", "--tpm2", "--tpm2-only", "--remove-keyslot", "0", "v.vault"],
            tpm: tpm
        )
        #expect(only.status == 0, "\(only.stderr)")
        let remove = try w.run(["passwd", "--tpm2", "--remove-keyslot", "1", "v.vault"], tpm: tpm)
        #expect(remove.status == 0, "\(remove.stderr)")
        let set = try w.run(
            ["set", "--tpm2", "--service", "api", "v.vault"],
            stdin: "t0ken",
            tpm: tpm
        )
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try getWithTPM(w, tpm).stdout == "s3cret")
        let misplaced = try w.run(
            ["passwd", "--tpm2", "--tpm2-only", "--add-recovery", "v.vault"],
            tpm: tpm
        )
        #expect(misplaced.status == 64)
    }

    /// A PIN is asked for only once the TPM answered; inspect and backup authenticate with --tpm2.
    @Test func noPINIsAskedForAnAbsentTPM_andTPM2IsACredentialForInspect() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        try w.write("pin", "4711\n")
        try vaultWithTPM2Slot(w, tpm)
        let inspect = try w.run(["inspect", "--json", "--tpm2", "v.vault"], tpm: tpm).json()
        #expect(inspect["authenticated"] as? Bool == true)
        // Another machine's TPM cannot load a PIN keyslot's object: it says so, and asks no PIN.
        let pinSlot = try w.run(
            ["passwd", "--password-file", "pw", "--add-tpm2", "--tpm2-pin", "v.vault"],
            tpm: tpm,
            pinFile: "pin"
        )
        #expect(pinSlot.status == 0, "\(pinSlot.stderr)")
        let elsewhere = try SoftwareTPM(directory: w.file("other-tpm"))
        let removeNoPIN = try w.run(
            ["passwd", "--password-file", "pw", "--remove-keyslot", "1", "--no-rekey", "v.vault"],
            tpm: tpm
        )
        #expect(removeNoPIN.status == 0, "\(removeNoPIN.stderr)")
        let copied = try w.run(
            ["get", "--tpm2", "--service", "db", "v.vault"],
            environment: elsewhere.environment + ["VAULTTOOL_TPM2_PIN_FILE": ""]
        )
        #expect(copied.status == 3, "\(copied.stderr)")
        #expect(copied.stderr.contains("sealed by another machine's TPM"))
        tpm.stop()
        let add = try w.run(
            ["passwd", "--password-file", "pw", "--add-tpm2", "--tpm2-pin", "v.vault"],
            environment: tpm.environment + ["VAULTTOOL_TPM2_PIN_FILE": ""]
        )
        #expect(add.status == 7, "\(add.stderr)")
        #expect(add.stderr.contains("Cannot reach the TPM"))
        #expect(!add.stderr.contains("PIN"))
    }
}
