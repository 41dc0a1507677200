// VaultSecretService tests: the activation file and unit --install writes, each word quoted for its reader.

import Foundation
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

    @Test func install_writesBothFiles_thenLeavesThemAsTheyAre() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("install-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        var said = [String]()
        let environment = ["HOME": home, "XDG_DATA_HOME": "", "XDG_CONFIG_HOME": home + "/config"]
        try ProviderInstall.install(executable: "/usr/bin/vaulttool", vaults: ["/v/a.vault"], environment: environment)
        {
            said.append($0)
        }
        let activation = home + "/.local/share/dbus-1/services/org.freedesktop.secrets.service"
        let unit = home + "/config/systemd/user/vaulttool-secret-service.service"
        #expect(said == ["wrote \(activation)\n", "wrote \(unit)\n"])
        #expect(try String(contentsOfFile: activation, encoding: .utf8).contains("--vault /v/a.vault"))
        #expect(try FileManager.default.attributesOfItem(atPath: unit)[.posixPermissions] as? Int == 0o644)
        said = []
        try ProviderInstall.install(executable: "/usr/bin/vaulttool", vaults: ["/v/a.vault"], environment: environment)
        {
            said.append($0)
        }
        #expect(said == ["unchanged \(activation)\n", "unchanged \(unit)\n"])
        try ProviderInstall.install(executable: "/usr/bin/vaulttool", vaults: ["/v/b.vault"], environment: environment)
        {
            said.append($0)
        }
        #expect(said.suffix(2) == ["replaced \(activation)\n", "replaced \(unit)\n"])
    }

    @Test func install_withoutHome_isRefused() {
        #expect(throws: ProviderInstall.Refusal.self) {
            try ProviderInstall.install(executable: "/usr/bin/vaulttool", vaults: [], environment: [:]) { _ in }
        }
    }
}
