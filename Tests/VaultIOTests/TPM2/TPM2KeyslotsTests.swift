// vault: TPM2 keyslots and the TPM-sealed device secret through the library, against swtpm.

import Foundation
import Synchronization
import Testing
import VaultFormat
import VaultIO
import VaultTestSupport

@Suite("TPM2 keyslots through the library", .serialized)
struct TPM2KeyslotTests {
    @Test func aServerUnlocksWithTheTPMAndNoPasswordOnDisk() throws {
        try withTPMAndVault { dir, tpm, device, vault in
            try vault.write { txn in
                try txn.set(makeDraft(service: "db", secret: "s3cret"))
                #expect(try txn.addTPM2Keyslot(pcrs: [7], device: device) == 1)
                #expect(txn.tpm2Keyslots == [1])
            }
            let server = try Vault(
                path: vault.path,
                credentials: .tpm2(device: device),
                configuration: testConfiguration
            )
            #expect(try secret(in: server, service: "db") == "s3cret")
            // The binding is in the header, authenticated once the vault is open.
            let header = try server.read { $0.header }
            #expect(header.tpm2Bindings.map(\.sealed.pcrs) == [[7]])
            #expect(header.tpm2Binding(for: header.keyslots[1])?.sealed.requiresPIN == false)
        }
    }

    @Test func thePINIsAskedForOnlyWhenAKeyslotNeedsOne() throws {
        try withTPMAndVault { dir, tpm, device, vault in
            try vault.write { txn in
                try txn.set(makeDraft(service: "db", secret: "s3cret"))
                try txn.addTPM2Keyslot(pin: SecretBytes(utf8: "2468"), device: device)
            }
            let asked = Atomic<Int>(0)
            var credentials = Credentials()
            credentials.tpm2 = TPM2Unlock(device: device) {
                asked.add(1, ordering: .relaxed)
                return SecretBytes(utf8: "2468")
            }
            #expect(
                try secret(
                    in: try Vault(path: vault.path, credentials: credentials, configuration: testConfiguration),
                    service: "db"
                ) == "s3cret"
            )
            #expect(asked.load(ordering: .relaxed) == 1)
            #expect(throws: VaultIOError(.tpm2PINRequired)) {
                try Vault(path: vault.path, credentials: .tpm2(device: device), configuration: testConfiguration)
            }
            #expect(throws: VaultIOError(.tpm2WrongPIN)) {
                try Vault(
                    path: vault.path,
                    credentials: .tpm2(pin: SecretBytes(utf8: "1357"), device: device),
                    configuration: testConfiguration
                )
            }
            // A password offered with the TPM still opens when the TPM refuses.
            var both = Credentials.password(testPassword)
            both.tpm2 = TPM2Unlock(pin: SecretBytes(utf8: "1357"), device: device)
            #expect(
                try secret(
                    in: try Vault(path: vault.path, credentials: both, configuration: testConfiguration),
                    service: "db"
                ) == "s3cret"
            )
        }
    }

    /// R-TPM-5 with a writer that does not rewrap the slot: removing the keyslot removes the binding.
    @Test func removingTheKeyslotRemovesItsBinding_andOnlyATPMIsRefused() throws {
        try withTPMAndVault { dir, tpm, device, vault in
            try vault.write { txn in try txn.addTPM2Keyslot(device: device) }
            #expect(throws: VaultFormatError(.invalidParameter)) {
                try vault.write { txn in try txn.removeKeyslot(at: 0, rekey: nil) }
            }
            #expect(throws: VaultFormatError(.invalidParameter)) {
                try vault.write { txn in
                    try txn.addTPM2Keyslot(device: device, allowTPM2Only: false);
                    try txn.removeKeyslot(at: 0, rekey: nil)
                }
            }
            try vault.write { txn in try txn.removeKeyslot(at: 1, rekey: nil) }
            let header = try vault.read { $0.header }
            #expect(header.tpm2Bindings.isEmpty)
            #expect(!header.unknownFields.contains { $0.type == TPM2Binding.fieldType })
            #expect(throws: VaultIOError(.noTPM2Keyslot)) {
                try Vault(path: vault.path, credentials: .tpm2(device: device), configuration: testConfiguration)
            }
        }
    }

    @Test func aTPMSealedDeviceSecretOpensTheDeviceBoundClasses() throws {
        try withTemporaryDirectory { dir in
            let tpm = try SoftwareTPM(directory: dir + "/tpm")
            let path = dir + "/device-secret"
            try DeviceSecretFile.createNew(at: path, sealedBy: TPM2Device(tcti: tpm.tcti))
            #expect(throws: VaultIOError(.alreadyExists)) {
                try DeviceSecretFile.createNew(at: path, sealedBy: TPM2Device(tcti: tpm.tcti))
            }
            var configuration = deviceConfiguration(path)
            configuration.tpm2Device = TPM2Device(tcti: tpm.tcti)
            let vault = try makeVault(in: dir, configuration: configuration)
            var draft = makeDraft(service: "host", secret: "bound")
            draft.protectionClass = .whenUnlockedThisDeviceOnly
            try vault.write { txn in try txn.set(draft) }
            let again = try Vault(path: vault.path, credentials: .password(testPassword), configuration: configuration)
            #expect(try secret(in: again, service: "host") == "bound")
            let first = try DeviceSecretFile.load(at: path, tpm2: TPM2Device(tcti: tpm.tcti))
            let second = try DeviceSecretFile.load(at: path, tpm2: TPM2Device(tcti: tpm.tcti))
            #expect(first.secret == second.secret)
            let other = try SoftwareTPM(directory: dir + "/other-tpm")
            #expect(throws: VaultIOError(.tpm2SealedElsewhere)) {
                try DeviceSecretFile.load(at: path, tpm2: TPM2Device(tcti: other.tcti))
            }
        }
    }

    /// L-TPM-7: a TPM-sealed file cut to 32 bytes is refused, never taken as a plain secret made
    /// of its public header bytes.
    @Test func aSealedDeviceSecretCutTo32Bytes_isRefused() throws {
        try withTPMAndVault { dir, tpm, device, _ in
            let path = dir + "/device-secret"
            try DeviceSecretFile.createNew(at: path, sealedBy: device)
            let whole = try #require(FileManager.default.contents(atPath: path))
            let cut = dir + "/cut"
            try Data(whole.prefix(32)).write(to: URL(fileURLWithPath: cut))
            #expect(chmod(cut, 0o600) == 0)
            #expect(throws: VaultIOError(.invalidDeviceSecret)) {
                try DeviceSecretFile.load(at: cut, tpm2: device)
            }
        }
    }

    /// Spec/tpm2.md §7.5: the reference tools alone recover the key file from the binding, so a
    /// TPM2 keyslot never depends on vault's code to be opened on its own machine.
    @Test(arguments: [false, true])
    func tpm2ToolsAloneRecoverTheKeyFile_fromTheBindingBytes(withPolicy: Bool) throws {
        try withTPMAndVault { dir, tpm, device, vault in
            let pin = "2468"
            try vault.write { txn in
                try txn.set(makeDraft(service: "db", secret: "s3cret"))
                try txn.addTPM2Keyslot(
                    pcrs: withPolicy ? [7] : [],
                    pin: withPolicy ? SecretBytes(utf8: pin) : nil,
                    device: device
                )
            }
            let sealed = try #require(try vault.read { $0.header }.tpm2Bindings.first).sealed
            try Data(sealed.publicArea).write(to: URL(fileURLWithPath: dir + "/pub"))
            try Data(sealed.privateArea).write(to: URL(fileURLWithPath: dir + "/priv"))
            // The SRK template's unique field, x and y of 32 zero bytes each, as tpm2-tools reads it:
            // the C structure TPMS_ECC_POINT (a little-endian size, then a 128-byte buffer, twice).
            var unique = [UInt8](repeating: 0, count: 260)
            unique[0] = 0x20
            unique[130] = 0x20
            try Data(unique).write(to: URL(fileURLWithPath: dir + "/unique"))
            let steps: [[String]] = [
                [
                    "tpm2_createprimary", "-C", "o", "-g", "sha256", "-G", "ecc256:aes128cfb", "-a",
                    "restricted|decrypt|fixedtpm|fixedparent|sensitivedataorigin|userwithauth|noda",
                    "-u", dir + "/unique", "-c", dir + "/prim.ctx",
                ],
                ["tpm2_flushcontext", "-t"],
                [
                    "tpm2_load", "-C", dir + "/prim.ctx", "-u", dir + "/pub", "-r", dir + "/priv", "-c",
                    dir + "/obj.ctx",
                ],
                ["tpm2_flushcontext", "-t"],
            ]
            for step in steps {
                let result = try tpm.tool(step[0], Array(step.dropFirst()))
                #expect(result.status == 0, "\(step[0]): \(result.output)")
            }
            let session = dir + "/s.ctx"
            var authorization = "session:" + session
            if withPolicy {
                try tpm.tool("tpm2_startauthsession", ["--policy-session", "-c", dir + "/prim.ctx", "-S", session])
                try tpm.tool("tpm2_policypcr", ["-S", session, "-l", "sha256:7"])
                try tpm.tool("tpm2_policyauthvalue", ["-S", session])
                let auth = TPM2SealedObject.authValue(pin: SecretBytes(utf8: pin))
                authorization += "+hex:" + auth.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
            } else {
                try tpm.tool("tpm2_startauthsession", ["--hmac-session", "-c", dir + "/prim.ctx", "-S", session])
            }
            let unseal = try tpm.tool("tpm2_unseal", ["-c", dir + "/obj.ctx", "-p", authorization, "-o", dir + "/key"])
            #expect(unseal.status == 0, "\(unseal.output)")
            let keyFile = try #require(FileManager.default.contents(atPath: dir + "/key"))
            #expect(keyFile.count == 32)
            let opened = try Vault(
                path: vault.path,
                credentials: Credentials(keyFile: SecretBytes(bytes: Array(keyFile))),
                configuration: testConfiguration
            )
            #expect(try secret(in: opened, service: "db") == "s3cret")
        }
    }

    /// A temporary directory, a fresh software TPM in it, and a password vault.
    private func withTPMAndVault(
        _ body: (_ dir: String, _ tpm: SoftwareTPM, _ device: TPM2Device, _ vault: Vault) throws -> Void
    ) throws {
        try withTemporaryDirectory { dir in
            let tpm = try SoftwareTPM(directory: dir + "/tpm")
            try body(dir, tpm, TPM2Device(tcti: tpm.tcti), try makeVault(in: dir))
        }
    }
}
