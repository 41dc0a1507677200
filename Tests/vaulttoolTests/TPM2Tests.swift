// vaulttool: TPM2 keyslots and the TPM-sealed device secret against a real software TPM (swtpm).

import Foundation
import Glibc
import Testing
import VaultTestSupport

/// A vault with a password keyslot, one item, and a TPM2 keyslot added with `options`.
func vaultWithTPM2Slot(_ w: Workspace, _ tpm: SoftwareTPM, _ options: [String] = [], format: String? = nil) throws {
    try w.makeVault(format: format)
    try w.set("s3cret", ["--service", "db", "--account", "app"])
    let add = try w.run(
        ["passwd", "--password-file", "pw", "--add-tpm2"] + options + ["v.vault"],
        tpm: tpm,
        pinFile: "pin"
    )
    #expect(add.status == 0, "\(add.stderr)")
    #expect(add.stdout.hasPrefix("Added TPM2 keyslot #1"))
}

/// A workspace with its own software TPM, the PIN file `pin` (4711), a wrong one `wrong` (1234),
/// and the vault of `vaultWithTPM2Slot` whose TPM2 keyslot needs the PIN.
func vaultWithPINSlot() throws -> (Workspace, SoftwareTPM) {
    let w = try Workspace()
    let tpm = try SoftwareTPM(directory: w.file("tpm"))
    try w.write("pin", "4711\n")
    try w.write("wrong", "1234\n")
    try vaultWithTPM2Slot(w, tpm, ["--tpm2-pin"])
    return (w, tpm)
}

func getWithTPM(_ w: Workspace, _ tpm: SoftwareTPM, pinFile: String? = nil) throws -> RunResult {
    try w.run(["get", "--tpm2", "--service", "db", "v.vault"], tpm: tpm, pinFile: pinFile)
}

extension Workspace {
    /// Runs vaulttool against `tpm`, with the workspace file `pinFile` as the TPM PIN when given.
    func run(_ arguments: [String], stdin: String? = nil, tpm: SoftwareTPM, pinFile: String? = nil) throws
        -> RunResult
    {
        var environment = tpm.environment
        if let pinFile { environment["VAULTTOOL_TPM2_PIN_FILE"] = file(pinFile) }
        return try run(arguments, stdin: stdin, environment: environment)
    }
}

func lockoutCounter(_ tpm: SoftwareTPM) throws -> Int? {
    let cap = try tpm.tool("tpm2_getcap", ["properties-variable"])
    guard let line = cap.output.split(separator: "\n").first(where: { $0.contains("TPM2_PT_LOCKOUT_COUNTER") }),
        let value = line.split(separator: " ").last
    else { return nil }
    return Int(value.dropFirst(2), radix: 16)
}

/// Spec/tpm2.md, through the CLI a server operator uses; each test starts its own swtpm.
@Suite("TPM2 keyslots", .serialized)
struct TPM2Tests {
    @Test func theTPMAloneOpensTheVault_andInspectShowsTheSlotWithoutOpeningIt() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        try vaultWithTPM2Slot(w, tpm, ["--tpm2-pcrs", "7"])
        let get = try getWithTPM(w, tpm)
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout == "s3cret")
        // Without a credential: the slot, its PCRs and that it needs no PIN.
        let inspect = try w.run(["inspect", "--json", "v.vault"]).json()
        let slots = try #require(inspect["keyslots"] as? [[String: Any]])
        #expect(slots.map { $0["kind"] as? String } == ["password", "tpm2"])
        let policy = try #require(slots[1]["tpm2"] as? [String: Any])
        #expect(policy["pcrs"] as? [Int] == [7])
        #expect(policy["pin"] as? Bool == false)
        #expect(try w.run(["inspect", "v.vault"]).stdout.contains("tpm2"))
        // Writes through the TPM work too, and the password still opens.
        let set = try w.run(
            ["set", "--tpm2", "--service", "api", "v.vault"],
            stdin: "t0ken",
            tpm: tpm
        )
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try w.run(["get", "--password-file", "pw", "--service", "api", "v.vault"]).stdout == "t0ken")
    }

    @Test func aWrongPINIsCountedByTheTPM_andTheRightOneOpens() throws {
        let (w, tpm) = try vaultWithPINSlot()
        #expect(try w.run(["inspect", "v.vault"]).stdout.contains("no PCRs, PIN"))
        let before = try #require(try lockoutCounter(tpm))
        let wrong = try getWithTPM(w, tpm, pinFile: "wrong")
        #expect(wrong.status == 3)
        #expect(wrong.stderr.contains("Wrong TPM PIN"))
        #expect(!wrong.stderr.contains("1234") && !wrong.stderr.contains("4711"))
        #expect(try lockoutCounter(tpm) == before + 1)
        // No PIN and no terminal: a clear refusal, and the TPM counts no failure.
        var noPIN = tpm.environment
        noPIN["VAULTTOOL_TPM2_PIN_FILE"] = ""
        let missing = try w.run(["get", "--tpm2", "--service", "db", "v.vault"], environment: noPIN)
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("VAULTTOOL_TPM2_PIN_FILE"))
        #expect(try lockoutCounter(tpm) == before + 1)
        let right = try getWithTPM(w, tpm, pinFile: "pin")
        #expect(right.status == 0, "\(right.stderr)")
        #expect(right.stdout == "s3cret")
    }

    @Test func repeatedWrongPINsLockTheTPMOut() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        try w.write("pin", "4711\n")
        try w.write("wrong", "1234\n")
        // A short lockout so that the test reaches it: 2 tries, then locked.
        #expect(try tpm.tool("tpm2_dictionarylockout", ["-s", "-n", "2", "-t", "600", "-l", "600"]).status == 0)
        try vaultWithTPM2Slot(w, tpm, ["--tpm2-pin"])
        for _ in 0..<2 { #expect(try getWithTPM(w, tpm, pinFile: "wrong").stderr.contains("Wrong TPM PIN")) }
        let locked = try getWithTPM(w, tpm, pinFile: "pin")
        #expect(locked.status == 3)
        #expect(locked.stderr.contains("locked out"))
        // The password is the way in meanwhile.
        #expect(try w.run(["get", "--password-file", "pw", "--service", "db", "v.vault"]).stdout == "s3cret")
    }

    @Test func aChangedPCRIsRefused_andThePasswordStillOpens() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        try vaultWithTPM2Slot(w, tpm, ["--tpm2-pcrs", "7"])
        #expect(try tpm.tool("tpm2_pcrextend", ["7:sha256=" + String(repeating: "11", count: 32)]).status == 0)
        let get = try getWithTPM(w, tpm)
        #expect(get.status == 3)
        #expect(get.stderr.contains("a PCR the keyslot is bound to changed"))
        #expect(try w.run(["get", "--password-file", "pw", "--service", "db", "v.vault"]).stdout == "s3cret")
        // A slot bound to another PCR is untouched by the change.
        #expect(
            try w.run(
                ["passwd", "--password-file", "pw", "--add-tpm2", "--tpm2-pcrs", "0,2", "v.vault"],
                tpm: tpm
            ).status == 0
        )
        let other = try getWithTPM(w, tpm)
        #expect(other.status == 0, "\(other.stderr)")
    }

    @Test func aClearedTPM_orAnotherMachinesTPM_isRefusedWithAClearError() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        try vaultWithTPM2Slot(w, tpm)
        // The vault and the TPM state of this machine copied to a machine with another TPM.
        let elsewhere = try SoftwareTPM(directory: w.file("other-tpm"))
        let copied = try getWithTPM(w, elsewhere)
        #expect(copied.status == 3)
        #expect(copied.stderr.contains("sealed by another machine's TPM, or this TPM was cleared"))
        // This machine's TPM cleared: the same refusal; the password (the recovery path) opens.
        #expect(try tpm.tool("tpm2_clear", ["-c", "p"]).status == 0)
        #expect(try getWithTPM(w, tpm).stderr.contains("this TPM was cleared"))
        #expect(try w.run(["get", "--password-file", "pw", "--service", "db", "v.vault"]).stdout == "s3cret")
        // No TPM reachable at all.
        tpm.stop()
        let gone = try getWithTPM(w, tpm)
        #expect(gone.status == 7)
        #expect(gone.stderr.contains("Cannot reach the TPM through 'swtpm:path="))
    }

    @Test func aVaultWithoutATPM2Slot_saysSo() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        try w.makeVault()
        let get = try w.run(["get", "--tpm2", "--service", "db", "v.vault"], tpm: tpm)
        #expect(get.status == 3)
        #expect(get.stderr.contains("no TPM2 keyslot"))
    }

    @Test func theTPMIsNeverTheOnlyWayIn_unlessSaidExplicitly() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        try vaultWithTPM2Slot(w, tpm)
        let remove = try w.run(
            ["passwd", "--password-file", "pw", "--remove-keyslot", "0", "v.vault"],
            tpm: tpm
        )
        #expect(remove.status != 0)
        #expect(remove.stderr.contains("The TPM would be the only way into the vault"))
        // --remove-key-file leaves TPM2 keyslots alone: they are not the user's key files.
        let keyFiles = try w.run(
            ["passwd", "--password-file", "pw", "--remove-key-file", "v.vault"],
            tpm: tpm
        )
        #expect(keyFiles.status == 2)
        let explicit = try w.run(
            ["passwd", "--tpm2", "--tpm2-only", "--remove-keyslot", "0", "v.vault"],
            tpm: tpm
        )
        #expect(explicit.status == 0, "\(explicit.stderr)")
        #expect(try getWithTPM(w, tpm).stdout == "s3cret")
    }

    @Test func rekeyKeepsTheTPM2SlotWhenTheTPMIsThere_andDropsItOnlyWhenTold() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        try vaultWithTPM2Slot(w, tpm)
        let rekey = try w.run(["rekey", "--password-file", "pw", "v.vault"], tpm: tpm)
        #expect(rekey.status == 0, "\(rekey.stderr)")
        #expect(try getWithTPM(w, tpm).stdout == "s3cret")
        // Without the TPM the slot cannot be rewrapped: refused, then dropped with its binding.
        tpm.stop()
        let refused = try w.run(["rekey", "--password-file", "pw", "v.vault"], tpm: tpm)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("#1"))
        let dropped = try w.run(
            ["rekey", "--password-file", "pw", "--drop-keyslots", "v.vault"],
            tpm: tpm
        )
        #expect(dropped.status == 0, "\(dropped.stderr)")
        let slots = try #require(try w.run(["inspect", "--json", "v.vault"]).json()["keyslots"] as? [[String: Any]])
        #expect(slots.map { $0["kind"] as? String } == ["password"])
        try tpm.start()
        #expect(try getWithTPM(w, tpm).stderr.contains("no TPM2 keyslot"))
    }

    @Test func migrateKeepsTheTPM2Slot() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        try vaultWithTPM2Slot(w, tpm, format: "1.1")
        let migrate = try w.run(
            ["migrate", "--password-file", "pw", "--to", "2.0", "v.vault"],
            tpm: tpm
        )
        #expect(migrate.status == 0, "\(migrate.stderr)")
        #expect(
            (try w.run(["inspect", "--json", "v.vault"]).json()["format"] as? [String: Any])?["major"] as? Int == 2
        )
        let get = try getWithTPM(w, tpm)
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout == "s3cret")
    }

    @Test func theAgentHoldsKeysUnlockedThroughTheTPM() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        try vaultWithTPM2Slot(w, tpm)
        let agent = try AgentCommandTests.RunningAgent(in: w)
        let unlock = try w.run(["unlock", "--tpm2", "v.vault"], environment: agent.environment + tpm.environment)
        #expect(unlock.status == 0, "\(unlock.stderr)")
        tpm.stop()  // the agent's keys need no TPM afterwards
        let get = try w.run(["get", "--service", "db", "v.vault"], environment: agent.environment)
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout == "s3cret")
    }

    @Test func aTPMSealedDeviceSecret_isNoDeviceOnAnotherMachine() throws {
        let w = try Workspace()
        let tpm = try SoftwareTPM(directory: w.file("tpm"))
        let initialize = try w.run(["device-secret", "init", "--tpm2", "ds"], tpm: tpm)
        #expect(initialize.status == 0, "\(initialize.stderr)")
        #expect(initialize.stdout.contains("sealed by the TPM"))
        var status = stat()
        #expect(stat(w.file("ds"), &status) == 0 && status.st_mode & 0o777 == 0o600 && status.st_size != 32)
        try w.makeVault()
        let device = ["--device-secret-file", "ds"]
        let set = try w.run(
            ["set", "--password-file", "pw", "--service", "host", "--accessibility", "whenUnlockedThisDeviceOnly"]
                + device
                + ["v.vault"],
            stdin: "machine-bound",
            tpm: tpm
        )
        #expect(set.status == 0, "\(set.stderr)")
        let get = try w.run(
            ["get", "--password-file", "pw", "--service", "host"] + device + ["v.vault"],
            tpm: tpm
        )
        #expect(get.stdout == "machine-bound", "\(get.stderr)")
        // The home directory copied to another machine: the file is there, the device is not.
        let elsewhere = try SoftwareTPM(directory: w.file("other-tpm"))
        let copied = try w.run(
            ["get", "--password-file", "pw", "--service", "host"] + device + ["v.vault"],
            environment: elsewhere.environment
        )
        #expect(copied.status == 3)
        #expect(copied.stderr.contains("sealed by another machine's TPM"))
        #expect(!copied.stdout.contains("machine-bound"))
    }
}

extension Dictionary where Key == String, Value == String {
    static func + (lhs: Self, rhs: Self) -> Self { lhs.merging(rhs) { $1 } }
}
