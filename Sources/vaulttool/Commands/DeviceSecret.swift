// vaulttool device-secret: create this machine's device secret, or show where it lives.

import FoundationEssentials
import Glibc
import VaultIO

/// `vaulttool device-secret init [<file>]` and `vaulttool device-secret path`.
struct DeviceSecretCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "device-secret",
        abstract: "Create this machine's device secret, or print where it is.",
        discussion: """
            'init' creates 32 random bytes in a new file with mode 0600 (directories 0700), and never
            replaces an existing one: items of the ThisDeviceOnly classes sealed with a secret are
            lost with it. 'path' prints where the secret is looked for. The place is <file> when
            given, else $VAULTTOOL_DEVICE_SECRET_FILE, else $XDG_DATA_HOME/vault/device-secret
            (~/.local/share/vault/device-secret), which is also where the library's standard vault
            looks. Commands use a device secret only when given one with --device-secret-file or
            VAULTTOOL_DEVICE_SECRET_FILE. Keep it out of backups and synced folders.
            """
    )
    @Argument("action", help: "init or path.") var action: String
    @OptionalArgument("file", help: "The device-secret file (default: see above).") var file: String?

    func validate() throws {
        guard action == "init" || action == "path" else {
            throw UsageError("The action is 'init' or 'path', not '\(action)'")
        }
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment["VAULTTOOL_DEVICE_SECRET_FILE"].flatMap {
            $0.isEmpty ? nil : $0
        }
        guard let path = file ?? environment ?? DeviceSecretFile.defaultPath else {
            throw ToolError("this process has no home directory; set XDG_DATA_HOME or give a file", exitCode: .usage)
        }
        if action == "path" {
            Output.out(path + "\n")
            return
        }
        do {
            try DeviceSecretFile.createNew(at: path)
        } catch let error as VaultIOError where error.code == .alreadyExists {
            throw ToolError(
                "a device secret already exists at '\(path)' and is kept: replacing it would make "
                    + "the ThisDeviceOnly items sealed with it unreadable"
            )
        }
        Output.out(
            "Created the device secret \(path) (32 bytes, mode 0600). "
                + "Use it with --device-secret-file or VAULTTOOL_DEVICE_SECRET_FILE.\n"
        )
    }
}
