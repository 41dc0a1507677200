// vaulttool: key files are real keys, password files are bounded (issue 9, section 3).

import Foundation
import Glibc
import Testing

@Suite("Key files and password-file limits")
struct KeyFileCommandTests {
    private func keyslotCount(_ w: Workspace, _ vault: String = "v.vault") throws -> Int {
        (try w.run(["inspect", "--json", vault]).json()["keyslots"] as? [[String: Any]])?.count ?? -1
    }

    /// R-KF-1 through the CLI: the 6-byte "dragon" is refused, nothing is written.
    @Test func passwdAddKeyFile_refusesShortKeyFile() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write("dragon.key", "dragon")
        let result = try w.run(["passwd", "--password-file", "pw", "--add-key-file", "dragon.key", "v.vault"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("has 6 bytes; a new key-file keyslot needs at least 32 random bytes"))
        #expect(result.stderr.contains("--generate-key-file"))
        #expect(try keyslotCount(w) == 1)
    }

    @Test func createKeyFile_refusesShortKeyFile() throws {
        let w = try Workspace()
        try w.write("short.key", String(repeating: "k", count: 31))
        let result = try w.run(["create", "--key-file", "short.key", "k.vault"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("has 31 bytes"))
        #expect(!FileManager.default.fileExists(atPath: w.file("k.vault")))
    }

    @Test func createGenerateKeyFile_writes32BytesMode0600_thatOpenTheVault() throws {
        let w = try Workspace()
        let result = try w.run(["create", "--generate-key-file", "new.key", "k.vault"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("(keyslot: keyFile)"))
        #expect(result.stdout.contains("Wrote the key file new.key (32 random bytes)"))
        var status = stat()
        #expect(stat(w.file("new.key"), &status) == 0)
        #expect(status.st_size == 32)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(try w.run(["verify", "--key-file", "new.key", "k.vault"]).status == 0)

        // O_EXCL: an existing key file is never overwritten, and no vault is made.
        let before = try Data(contentsOf: URL(fileURLWithPath: w.file("new.key")))
        let again = try w.run(["create", "--generate-key-file", "new.key", "other.vault"])
        #expect(again.status != 0)
        #expect(again.stderr.contains("new.key"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.file("new.key"))) == before)
        #expect(!FileManager.default.fileExists(atPath: w.file("other.vault")))

        // Both options at once is a usage error.
        let both = try w.run(["create", "--key-file", "new.key", "--generate-key-file", "x.key", "y.vault"])
        #expect(both.status == 64)
    }

    /// The generated key file is removed again when the vault cannot be created.
    @Test func createGenerateKeyFile_removedWhenCreateFails() throws {
        let w = try Workspace()
        try w.makeVault()
        let result = try w.run(["create", "--generate-key-file", "lost.key", "v.vault"])
        #expect(result.status != 0)
        #expect(!FileManager.default.fileExists(atPath: w.file("lost.key")))
    }

    @Test func createGenerateKeyFile_withPassword_makesCompositeSlot() throws {
        let w = try Workspace()
        let result = try w.run(
            ["create", "--password-file", "pw", "--generate-key-file", "both.key"] + Workspace.fastKDF + ["b.vault"]
        )
        #expect(result.stdout.contains("(keyslot: passwordAndKeyFile"), "\(result.stderr)")
        #expect(try w.run(["verify", "--password-file", "pw", "b.vault"]).status == 3)
        #expect(try w.run(["verify", "--password-file", "pw", "--key-file", "both.key", "b.vault"]).status == 0)
    }

    @Test func passwdGenerateKeyFile_addsAKeyslotThatTheNewFileOpens() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("kept", ["--service", "s"])
        let result = try w.run(["passwd", "--password-file", "pw", "--generate-key-file", "g.key", "v.vault"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Added key-file keyslot #1.\nWrote the key file g.key (32 random bytes)"))
        #expect(try w.run(["get", "--key-file", "g.key", "--service", "s", "v.vault"]).stdout == "kept")
    }

    /// Key files are hashed as a stream and capped: an endless input ends with a clear error.
    @Test func keyFile_endlessInput_isRefusedWithUsageError() throws {
        let w = try Workspace()
        try w.makeVault()
        let result = try w.run(["get", "--key-file", "/dev/zero", "--service", "s", "v.vault"])
        #expect(result.status == 64)
        #expect(
            result.stderr
                == "Error: The key file '/dev/zero' is larger than 16 MiB; a key file is read to its end, so it must be a file, not an endless stream\n"
        )
    }

    /// A large key file (4 MiB) still works: it is streamed, not refused.
    @Test func keyFile_large_opensTheVault() throws {
        let w = try Workspace()
        try Data(repeating: 0xA5, count: 4 << 20).write(to: URL(fileURLWithPath: w.file("big.key")))
        let created = try w.run(["create", "--key-file", "big.key", "k.vault"])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try w.run(["verify", "--key-file", "big.key", "k.vault"]).status == 0)
    }

    /// Password files are capped at 64 KiB; the message gives the limit, never the content.
    @Test func passwordFile_over64KiB_isRefused_withoutEchoingIt() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write("huge", String(repeating: "Zq", count: 40 * 1024))
        let result = try w.run(["list", "--password-file", "huge", "v.vault"])
        #expect(result.status == 64)
        #expect(
            result.stderr == "Error: The password file 'huge' is larger than 64 KiB; a password is at most 64 KiB\n"
        )
        #expect(!result.stderr.contains("Zq"))
        let zero = try w.run(["list", "--password-file", "/dev/zero", "v.vault"])
        #expect(zero.status == 64)
        let stdin = try w.run(
            ["list", "--password-stdin", "v.vault"],
            stdin: String(repeating: "Zq", count: 40 * 1024)
        )
        #expect(stdin.status == 64)
        #expect(!stdin.stderr.contains("Zq"))
        // Exactly 64 KiB is still a password (a wrong one here).
        try w.write("edge", String(repeating: "a", count: 64 * 1024))
        #expect(try w.run(["list", "--password-file", "edge", "v.vault"]).status == 3)
    }
}
