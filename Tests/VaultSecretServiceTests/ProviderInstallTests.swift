// VaultSecretService tests: the activation file and unit --install writes, each word quoted for its reader.

import Testing

@testable import VaultSecretService

@Suite("ProviderInstall")
struct ProviderInstallTests {
    @Test func files_quoteEachWordForItsReader() throws {
        let files = try ProviderInstall.files(
            executable: "/usr/bin/vaulttool",
            vaults: ["/home/a/my vault's.vault", "/home/a/100%$x.vault"],
            dataHome: "/d",
            configHome: "/c"
        )
        #expect(
            files.map(\.path) == [
                "/d/dbus-1/services/org.freedesktop.secrets.service",
                "/c/systemd/user/vaulttool-secret-service.service",
            ]
        )
        #expect(
            files[0].text.contains(#"Exec=/usr/bin/vaulttool secret-service --vault '/home/a/my vault'\\''s.vault'"#)
        )
        #expect(files[1].text.contains(#"--vault "/home/a/my vault's.vault" --vault "/home/a/100%%$$x.vault""#))
    }

    @Test func files_refuseWhatNoExecLineCarries() {
        #expect(throws: ProviderInstall.Refusal.self) {
            try ProviderInstall.files(executable: "/opt/a\"b/vaulttool", vaults: [], dataHome: "/d", configHome: "/c")
        }
        #expect(throws: ProviderInstall.Refusal.self) {
            try ProviderInstall.files(
                executable: "/usr/bin/vaulttool",
                vaults: ["/a\nb"],
                dataHome: "/d",
                configHome: "/c"
            )
        }
    }
}
