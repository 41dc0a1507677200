// vault: the device-secret file: one another user could plant or read is refused.
// Found by the security review of the library.

import Foundation
import Testing
import VaultFormat
import VaultIO

@Suite("Device-secret file")
struct DeviceSecretFileTests {
    /// A device secret another user could have planted or read is refused (like ssh's key checks).
    @Test func deviceSecretFile_readableByOthersOrASymlink_isRefused() throws {
        try withTemporaryDirectory { directory in
            let secretPath = makeDeviceSecretFile(in: directory)
            chmod(secretPath, 0o644)
            #expect(throws: VaultIOError(.invalidDeviceSecret)) {
                try makeVault(in: directory, configuration: deviceConfiguration(secretPath))
            }
            chmod(secretPath, 0o600)
            let link = directory + "/link.secret"
            #expect(symlink(secretPath, link) == 0)
            #expect(throws: VaultIOError.self) {
                try makeVault(in: directory, name: "l.vault", configuration: deviceConfiguration(link))
            }
        }
    }
}
