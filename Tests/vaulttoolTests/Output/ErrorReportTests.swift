// vaulttool tests: every documented exit status (Spec/cli.md, "Exit status").

import Foundation
import Glibc
import Testing
import VaultTestSupport

@Suite("Exit status")
struct ExitCodeTests {
    let fixtures = FixtureRunner.fixturesRoot.appendingPathComponent("v1").path

    @Test func failure_1_whenTheVaultAlreadyExists() throws {
        let w = try Workspace()
        try w.makeVault()
        let again = try w.run(["create", "--password-file", "pw"] + Workspace.fastKDF + ["v.vault"])
        #expect(again.status == 1)
        #expect(again.stderr.hasPrefix("Error: A file already exists at "))
    }

    @Test func wrongCredential_3() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write("bad", "wrong")
        let result = try w.run(["list", "--password-file", "bad", "v.vault"])
        #expect(result.status == 3)
        #expect(result.stderr == "Error: Wrong password or key file\n")
    }

    @Test func damaged_4_forAFlippedRecord_andForAForeignFile() throws {
        let w = try Workspace()
        try w.write("pw1", "correct horse battery staple")
        let verify = try w.run(["verify", "--password-file", "pw1", fixtures + "/record_flipped_secret.vault"])
        #expect(verify.status == 4)
        #expect(verify.stderr.hasPrefix("Error: The vault is damaged or was tampered with: "))
        let inspect = try w.run(["inspect", fixtures + "/not_a_vault.txt"])
        #expect(inspect.status == 4)
        #expect(inspect.stdout.contains("DAMAGED"))
        let open = try w.run(["list", "--password-file", "pw1", fixtures + "/not_a_vault.txt"])
        #expect(open.status == 4)
        #expect(open.stderr == "Error: This file is not a vault\n")
    }

    @Test func unsupported_5_forAFutureMajor() throws {
        let w = try Workspace()
        // Major 3: this vaulttool reads formats 1 and 2 (R2-VER-1); the major is checked before
        // the checksum (R-HDR-2), so changing it alone is enough.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixtures + "/v1_empty.vault")))
        bytes[8] = 3
        try Data(bytes).write(to: URL(fileURLWithPath: w.file("future.vault")))
        let result = try w.run(["list", "--password-file", "pw", w.file("future.vault")])
        #expect(result.status == 5)
        #expect(result.stderr == "Error: Vault format 3 needs a newer vaulttool\n")
    }

    /// Found by a review after stdout stopped going through Foundation: an export or a get to a
    /// full disk said nothing and exited 0, so a "backup" could be empty. (A standard output that
    /// is closed at start is /dev/null, VaultTool.run: its writes succeed.)
    @Test func ioFailure_7_whenStandardOutputCannotBeWritten() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s3cret", ["--service", "svc", "--account", "a"])
        for command in ["export --password-file pw v.vault", "get --password-file pw --service svc v.vault"] {
            let r = try Tool.runProgram(
                "/bin/sh",
                ["-c", "\"$VAULTTOOL\" \(command) >/dev/full; echo \"status $?\" >&2"],
                stdin: nil,
                environment: ["VAULTTOOL": Tool.path, "PATH": "/usr/bin:/bin"],
                in: w.path
            )
            #expect(r.stderr.contains("status 7"), "\(command): \(r.stderr)")
            #expect(r.stderr.contains("vaulttool: cannot write to standard output: "))
            #expect(!r.stderr.contains("s3cret"))
        }
    }

    @Test func busy_6_whenAnotherWriterHoldsTheLock() throws {
        let w = try Workspace()
        try w.makeVault()
        let descriptor = open(w.file("v.vault.lock"), O_RDWR | O_CREAT, 0o600)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        // F_OFD_SETLK (37 on Linux; Glibc hides it without _GNU_SOURCE), as vaulttool's writer lock uses.
        #expect(fcntl(descriptor, 37, &lock) == 0)
        let result = try w.run(
            ["set", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"],
            stdin: "x",
            environment: ["VAULTTOOL_LOCK_TIMEOUT": "0.2"]
        )
        #expect(result.status == 6)
        #expect(result.stderr.hasPrefix("Error: Another program is writing the vault"))
    }

    @Test func ioFailure_7_forAMissingFile() throws {
        let w = try Workspace()
        let result = try w.run(["list", "--password-file", "pw", "missing.vault"])
        #expect(result.status == 7)
        #expect(result.stderr.contains("No such file or directory (errno 2)"))
        let noPasswordFile = try w.run(["list", "--password-file", "nope", "missing.vault"])
        #expect(noPasswordFile.status == 7)
        #expect(noPasswordFile.stderr == "Error: Cannot read the password file 'nope': No such file or directory\n")
    }

    @Test func usage_64() throws {
        let unknown = try Tool.run(["get", "--bogus", "v"])
        #expect(unknown.status == 64)
        #expect(
            unknown.stderr
                == "Error: Unknown option '--bogus'\nUsage: vaulttool get [<options>] <vault>\n  See 'vaulttool get --help' for more information.\n"
        )
        #expect(try Tool.run(["frobnicate"]).status == 64)
        #expect(try Tool.run([]).status == 64)
        #expect(try Tool.run(["get", "v.vault"]).status == 64)
        #expect(try Tool.run(["create", "--kdf", "extreme", "v.vault"]).status == 64)
        #expect(try Tool.run(["list", "--password-file", "a", "--password-stdin", "v"]).status == 64)
    }

    @Test func usage_64_whenNoPasswordAndNoTerminal() throws {
        let w = try Workspace()
        try w.makeVault()
        let result = try Tool.run(["list", "v.vault"], in: w.path)
        #expect(result.status == 64)
        #expect(result.stderr.contains("No password given and no terminal to ask on"))
    }

    @Test func weakKDF_isRefusedForNewVaults() throws {
        let w = try Workspace()
        let result = try w.run(["create", "--password-file", "pw", "--kdf-memory", "1024", "v.vault"])
        #expect(result.status == 4)
        #expect(result.stderr.hasPrefix("Error: The key-derivation parameters are refused: "))
    }
}
