// vaulttool tests: inspect and backup agree on what a device secret alone is.

import Foundation
import Testing

@Suite("inspect and backup: a device secret alone")
struct DeviceSecretCredentialTests {
    /// A password-only vault and a device secret that opens none of its keyslots.
    private func prepare() throws -> Workspace {
        let w = try Workspace()
        try w.makeVault()
        #expect(try w.run(["device-secret", "init", "ds"]).status == 0)
        return w
    }

    @Test func namedDeviceSecret_isACredential_forBothCommands() throws {
        let w = try prepare()
        // It opens no keyslot of this vault, so both check it and both exit 3.
        let inspect = try w.run(["inspect", "--device-secret-file", "ds", "v.vault"])
        #expect(inspect.status == 3, "\(inspect.stdout)\(inspect.stderr)")
        let backup = try w.run(["backup", "--device-secret-file", "ds", "v.vault", "copy.vault"])
        #expect(backup.status == 3, "\(backup.stderr)")
        #expect(!FileManager.default.fileExists(atPath: w.file("copy.vault")))
    }

    @Test func environmentDeviceSecretAlone_isNotACredential_forEitherCommand() throws {
        let w = try prepare()
        let environment = ["VAULTTOOL_DEVICE_SECRET_FILE": w.file("ds")]
        let inspect = try w.run(["inspect", "v.vault"], environment: environment)
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("not checked"))
        let backup = try w.run(["backup", "v.vault", "copy.vault"], environment: environment)
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stdout.contains("header and layout checked"))
    }
}
