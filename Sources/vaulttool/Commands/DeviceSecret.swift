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

            With --tpm2, 'init' writes the secret sealed by this machine's TPM instead: the file
            holds only what the TPM can unseal, so a copy of the home directory is no device, and
            a cleared TPM loses the ThisDeviceOnly items as a deleted file would.
            """
    )
    @Argument("action", help: "init or path.") var action: String
    @OptionalArgument("file", help: "The device-secret file (default: see above).") var file: String?
    @Flag("--tpm2", help: "With init: seal the secret by this machine's TPM, so a copy of the file is no device.")
    var tpm2: Bool
    @Option("--tpm2-pcrs", valueName: "list", help: "With --tpm2: bind to these SHA-256 PCRs, such as 7.")
    var tpm2PCRs: String?
    @Option("--tpm2-tcti", valueName: "tcti", help: "The TPM (default $VAULT_TPM2_TCTI, else device:/dev/tpmrm0).")
    var tpm2TCTI: String?

    func validate() throws {
        guard action == "init" || action == "path" else {
            throw UsageError("The action is 'init' or 'path', not '\(action)'")
        }
        if !tpm2 && tpm2PCRs != nil { throw UsageError("'--tpm2-pcrs' goes with '--tpm2'") }
        if action == "path" && tpm2 { throw UsageError("'--tpm2' goes with 'init'") }
    }

    func run() throws {
        let environment = environmentValue("VAULTTOOL_DEVICE_SECRET_FILE").flatMap {
            $0.isEmpty ? nil : $0
        }
        guard let path = file ?? environment ?? DeviceSecretFile.defaultPath else {
            throw ToolError("this process has no home directory; set XDG_DATA_HOME or give a file", exitCode: .usage)
        }
        if action == "path" {
            Output.out(path + "\n")
            return
        }
        let device = tpm2TCTI.map(TPM2Device.init(tcti:)) ?? .default
        do {
            if tpm2 {
                try DeviceSecretFile.createNew(at: path, sealedBy: device, pcrs: try Passwd.pcrs(tpm2PCRs))
            } else {
                try DeviceSecretFile.createNew(at: path)
            }
        } catch let error as VaultIOError where error.code == .alreadyExists {
            throw ToolError(
                "a device secret already exists at '\(path)' and is kept: replacing it would make "
                    + "the ThisDeviceOnly items sealed with it unreadable"
            )
        }
        let what = tpm2 ? "32 bytes sealed by the TPM at \(device), mode 0600" : "32 bytes, mode 0600"
        Output.out(
            "Created the device secret \(path) (\(what)). "
                + "Use it with --device-secret-file or VAULTTOOL_DEVICE_SECRET_FILE.\n"
        )
    }
}
