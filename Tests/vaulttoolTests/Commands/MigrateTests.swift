// vaulttool tests: migrate every fixture of Fixtures/v1, as its manifest describes it.

import Foundation
import Testing
import VaultTestSupport

@Suite("Migrate")
struct MigrateTests {
    static let manifest = try! FixtureRunner.manifest()
    static let successes = manifest.cases.filter { $0.expect == "success" }.map(\.name)
    static let failures = manifest.cases.filter { $0.expect == "failure" }.map(\.name)

    /// Copies the case's file into `w` and returns the credential options for it.
    func prepare(_ fixture: FixtureCase, in w: Workspace) throws -> [String] {
        try Data(try FixtureRunner.bytes(fixture.file)).write(to: URL(fileURLWithPath: w.file("f.vault")))
        var options = [String]()
        if let password = fixture.credentials.password {
            try w.write("fixture.pw", password)
            options += ["--password-file", "fixture.pw"]
        }
        if let keyFile = fixture.credentials.keyFile {
            options += ["--key-file", FixtureRunner.fixturesRoot.appendingPathComponent("v1/\(keyFile)").path]
        }
        if let hex = fixture.credentials.deviceSecret, let bytes = Hex.decode(hex) {
            try Data(bytes).write(to: URL(fileURLWithPath: w.file("device.secret")))
            // The device secret is loaded through the library, which wants mode 0600.
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: w.file("device.secret"))
            options += ["--device-secret-file", "device.secret"]
        }
        return options
    }

    static let floor = ["--kdf-memory", "19456", "--kdf-iterations", "2", "--kdf-lanes", "1"]

    @Test(arguments: successes)
    func successCase_migratesAndKeepsEveryItem(_ name: String) throws {
        let fixture = try #require(Self.manifest.cases.first { $0.name == name })
        let w = try Workspace()
        let credentials = try prepare(fixture, in: w)
        let migrate = try w.run(["migrate", "--json"] + Self.floor + credentials + ["f.vault"])
        if fixture.readOnly == true {
            #expect(migrate.status == 5)
            #expect(migrate.stderr.contains("migrate never downgrades"))
            return
        }
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let plan = try migrate.json()
        #expect(plan["fromFormat"] as? String == "1.0")
        #expect(plan["toFormat"] as? String == "1.1")
        #expect(plan["dryRun"] as? Bool == false)
        #expect(plan["migrated"] as? Bool == true, "every 1.0 vault is upgraded to 1.1")
        let inspect = try w.run(["inspect", "--json", "f.vault"]).json()
        #expect((inspect["format"] as? [String: Int]) == ["major": 1, "minor": 1])
        #expect(plan["backup"] == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: w.path).filter { $0.contains("backup") }.isEmpty)

        let export = try w.run(["export", "--include-device-only"] + credentials + ["f.vault"])
        #expect(export.status == 0, "\(export.stderr)")
        let items = try #require(try export.json()["items"] as? [[String: Any]])
        let expected = try FixtureRunner.expectedItems(fixture)
        #expect(items.count == expected.count)
        // R11-DEV-1: this device's ThisDeviceOnly items move to device-tagged IDs, which keep
        // the first 8 bytes (16 hex digits) of the old ID.
        let byID = Dictionary(
            items.map { (String(($0["id"] as! String).prefix(16)), $0) },
            uniquingKeysWith: { a, _ in a }
        )
        for item in expected {
            let found = try #require(byID[String(item.id.prefix(16))], "\(name): item \(item.id)")
            #expect(found["secretLength"] as? Int == item.secretLength)
            if let secret = item.secret { #expect(found["secret"] as? String == secret) }
            #expect(found["class"] as? String == item.itemClass)
            #expect(found["accessibility"] as? String == item.protectionClass)
            #expect(found["service"] as? String == item.attributes.service)
            #expect(found["account"] as? String == item.attributes.account)
        }
        let list = try w.run(["list", "--json"] + credentials + ["f.vault"])
        #expect(try list.json()["unavailable"] as? Int == fixture.unavailable ?? 0)
        let verify = try w.run(["verify", "--allow-foreign"] + credentials + ["f.vault"])
        #expect(verify.status == 0, "\(verify.stderr)")
    }

    @Test(arguments: failures)
    func failureCase_exitsWithItsStatus_andLeavesTheFile(_ name: String) throws {
        let fixture = try #require(Self.manifest.cases.first { $0.name == name })
        let w = try Workspace()
        let credentials = try prepare(fixture, in: w)
        let before = try Data(contentsOf: URL(fileURLWithPath: w.file("f.vault")))
        let migrate = try w.run(["migrate"] + Self.floor + credentials + ["f.vault"])
        let expected: Int32 =
            switch fixture.errorForVersion2Reader {  // R2-VER-3
            case "wrongCredential" where credentials.isEmpty: 64  // nothing to try, and no terminal to ask on
            case "wrongCredential": 3
            case "unsupportedVersion", "unsupportedFeature": 5
            default: 4
            }
        #expect(migrate.status == expected, "\(name): \(migrate.stderr)")
        #expect(migrate.stderr.hasPrefix("Error: "))
        #expect(migrate.stderr.split(separator: "\n").count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.file("f.vault"))) == before)
    }

    @Test func defaultTarget_raisesWeakSlotsToTheInteractivePreset_andDryRunChangesNothing() throws {
        let w = try Workspace()
        try Data(try FixtureRunner.bytes("v1_generic_one.vault")).write(to: URL(fileURLWithPath: w.file("f.vault")))
        try w.write("fixture.pw", "correct horse battery staple")
        let before = try Data(contentsOf: URL(fileURLWithPath: w.file("f.vault")))
        let dry = try w.run(["migrate", "--dry-run", "--password-file", "fixture.pw", "f.vault"])
        #expect(dry.status == 0)
        #expect(
            dry.stdout == """
                Vault:    \(w.file("f.vault"))
                Format:   vault 1.0 -> 1.1
                Keyslot:  #0 password: Argon2id 256 KiB, 1 pass, 1 lane -> Argon2id 64 MiB, 3 passes, 2 lanes
                Dry run: nothing was changed.

                """
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.file("f.vault"))) == before)
        let real = try w.run(["migrate", "--keep-backup", "--password-file", "fixture.pw", "f.vault"])
        #expect(real.stdout.contains("Migrated and verified. Backup kept at "), "\(real.stderr)")
        let backups = try FileManager.default.contentsOfDirectory(atPath: w.path).filter { $0.contains(".backup-") }
        #expect(backups.count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.file(backups[0]))) == before)
        let inspect = try w.run(["inspect", "--json", "f.vault"]).json()
        let kdf = ((inspect["keyslots"] as? [[String: Any]])?.first?["kdf"]) as? [String: Any]
        #expect(kdf?["algorithm"] as? String == "argon2id")
        #expect(numbers(kdf) == ["memoryKiB": 65536, "iterations": 3, "lanes": 2])
        let again = try w.run(["migrate", "--password-file", "fixture.pw", "f.vault"])
        #expect(again.stdout.hasSuffix("Keyslots: key derivation is current\nNothing to do.\n"))
    }
}
