// vaulttool tests: format 1.1 behaviour seen from the command line (issue 9 §4).

import Foundation
import Testing
import VaultFormat
import VaultTestSupport

@Suite("Format 1.1 CLI")
struct Format11Tests {
    /// Copies a fixture into `w` as `f.vault` and returns the credential options of `caseName`.
    func prepare(_ caseName: String, version: String, in w: Workspace, file: String? = nil) throws -> [String] {
        let fixture = try #require(try FixtureRunner.manifest(version: version).cases.first { $0.name == caseName })
        try Data(try FixtureRunner.bytes(file ?? fixture.file, version: version))
            .write(to: URL(fileURLWithPath: w.file("f.vault")))
        var options = [String]()
        if let password = fixture.credentials.password {
            try w.write("fixture.pw", password)
            options += ["--password-file", "fixture.pw"]
        }
        if let hex = fixture.credentials.deviceSecret, let bytes = Hex.decode(hex) {
            try Data(bytes).write(to: URL(fileURLWithPath: w.file("device.secret")))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: w.file("device.secret"))
            options += ["--device-secret-file", "device.secret"]
        }
        return options
    }

    /// R11-DEV-3: with a device secret, foreign items fail `verify` unless `--allow-foreign`.
    @Test func verify_withDeviceSecret_failsOnForeignItems_unlessAllowed() throws {
        let w = try Workspace()
        let options = try prepare("v11_protection_classes_other_device", version: "v1.1", in: w)
        let strict = try w.run(["verify"] + options + ["f.vault"])
        #expect(strict.status == 4)
        #expect(strict.stderr == "Error: 4 items read as another device's; if that is expected, pass --allow-foreign\n")
        let allowed = try w.run(["verify", "--allow-foreign"] + options + ["f.vault"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stdout.contains("3 items verified"))
        // Without a device secret nothing can be attributed: counted as not checked, as before.
        let noDevice = try w.run(["verify", "--password-file", "fixture.pw", "f.vault"])
        #expect(noDevice.status == 0, "\(noDevice.stderr)")
    }

    /// Issue 9 §4: a flipped nonce bit in this device's record is damage for verify, list and get.
    @Test func damagedOwnDeviceRecord_isReportedAsDamage() throws {
        let w = try Workspace()
        let options = try prepare(
            "v11_protection_classes",
            version: "v1.1",
            in: w,
            file: "record_own_device_nonce_flipped.vault"
        )
        let verify = try w.run(["verify", "--allow-foreign"] + options + ["f.vault"])
        #expect(verify.status == 4, "\(verify.stdout)")
        let list = try w.run(["list"] + options + ["f.vault"])
        #expect(list.status == 4, "\(list.stdout)")
        // Exactly one of the four device-bound items is damaged: its get exits 4, none says "no item".
        var statuses = [Int32]()
        for account in [
            "whenUnlockedThisDeviceOnly", "afterFirstUnlockThisDeviceOnly", "alwaysThisDeviceOnly",
            "whenPasscodeSetThisDeviceOnly",
        ] {
            let get = try w.run(["get"] + options + ["--service", "classes", "--account", account, "f.vault"])
            #expect(!get.stderr.contains("no item"), "\(get.stderr)")
            statuses.append(get.status)
        }
        #expect(statuses.sorted() == [0, 0, 0, 4])
    }

    /// In a 1.0 file the same damage still reads as "another device" (1.0 attribution), which
    /// `verify` used to accept; with a device secret it now fails unless --allow-foreign (R11-DEV-3).
    @Test func damagedOwnDeviceRecordIn10File_failsVerifyWithoutAllowForeign() throws {
        let w = try Workspace()
        let options = try prepare("v1_protection_classes", version: "v1", in: w)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: w.file("f.vault")))
        #expect(try w.run(["verify"] + options + ["f.vault"]).status == 0)
        let fixture = try #require(try FixtureRunner.manifest().cases.first { $0.name == "v1_protection_classes" })
        let snapshot = try VaultSnapshot.open(Array(bytes), with: try FixtureRunner.credentials(fixture))
        let bound = try #require(
            try snapshot.index.entries.firstIndex { $0.protectionClass.isDeviceBound }
        )
        bytes[snapshot.recordsOffset + (try snapshot.index.offsets[bound]) + 3] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: w.file("f.vault")))
        #expect(try w.run(["verify"] + options + ["f.vault"]).status == 4)
        #expect(try w.run(["verify", "--allow-foreign"] + options + ["f.vault"]).status == 0)
    }

    /// R-HDR-7 / R11-VER-1: a write keeps a 1.0 file at 1.0; migrate raises it and re-tags items.
    @Test func writeKeeps10_migrateRaisesTo11_andRetags() throws {
        let w = try Workspace()
        let options = try prepare("v1_protection_classes", version: "v1", in: w)
        let set = try w.run(
            ["set"] + options + ["--service", "new", "--account", "x", "f.vault"],
            stdin: "value"
        )
        #expect(set.status == 0, "\(set.stderr)")
        #expect(numbers(try w.run(["inspect", "--json", "f.vault"]).json()["format"]) == ["major": 1, "minor": 0])
        let migrate = try w.run(["migrate", "--json"] + options + ["f.vault"])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let plan = try migrate.json()
        #expect(plan["toFormat"] as? String == "1.1")
        #expect(plan["retaggedItems"] as? Int == 4)
        #expect(plan["pendingDeviceItems"] as? Int == 0)
        #expect(numbers(try w.run(["inspect", "--json", "f.vault"]).json()["format"]) == ["major": 1, "minor": 1])
        #expect(try w.run(["verify"] + options + ["f.vault"]).status == 0)
        let again = try w.run(["migrate"] + options + ["f.vault"])
        #expect(again.stdout.hasSuffix("Nothing to do.\n"), "\(again.stdout)")
    }

    /// R11-MIG-1 step 2: a 1.0 keyslot made from a decomposed (NFD) password is rewrapped with the
    /// NFC form, so that the same password, typed either way, opens the migrated 1.1 vault.
    @Test func migrate_rewrapsKeyslotOfDecomposedPassword() throws {
        let decomposed = "cafe\u{301} cre\u{300}me"
        let composed = "caf\u{E9} cr\u{E8}me"
        let vaultID = SeededRandom(seed: "nfd vault").bytes(16)
        let master = MasterKey(secret: SecretBytes(bytes: SeededRandom(seed: "nfd master").bytes(32)))
        let slot = try KeyHierarchy.makeKeyslot(
            kind: .password,
            wrapping: master.secret,
            scope: .masterKey,
            credentials: .password(decomposed),
            kdf: KDFParameters(memoryKiB: 19_456, iterations: 2, lanes: 1),
            vaultID: vaultID,
            normalizesPassword: false
        )
        var writer = try VaultWriter(
            vaultID: vaultID,
            created: 0,
            keyslots: [slot],
            keys: KeyHierarchy.keys(master: master, deviceSecret: nil, vaultID: vaultID)
        )
        writer.setVersion(major: 1, minor: 0)
        let w = try Workspace()
        try Data(writer.encode(now: 0)).write(to: URL(fileURLWithPath: w.file("f.vault")))
        try w.write("nfd.pw", decomposed)
        try w.write("nfc.pw", composed)
        #expect(try w.run(["verify", "--password-file", "nfc.pw", "f.vault"]).status == 3, "1.0: bytes as given")
        // The slot's cost is the target, so the only reason to rewrap it is the password form.
        let migrate = try w.run(
            ["migrate", "--json"] + MigrateTests.floor + ["--password-file", "nfd.pw", "f.vault"]
        )
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let changes = try #require(try migrate.json()["keyslots"] as? [[String: Any]])
        #expect(changes.count == 1 && (changes[0]["to"] as? String)?.hasSuffix("(NFC password)") == true)
        #expect(try w.run(["verify", "--password-file", "nfc.pw", "f.vault"]).status == 0)
        #expect(try w.run(["verify", "--password-file", "nfd.pw", "f.vault"]).status == 0)
    }
}
