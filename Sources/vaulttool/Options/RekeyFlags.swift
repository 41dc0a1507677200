// vaulttool: the options that say which keyslots and items a rekey may keep or drop.

import VaultIO

/// `--keep-password-file`, `--drop-keyslots` and `--drop-foreign`, shared by `rekey` and `passwd`.
///
/// Spec: Spec/cli.md, "rekey".
struct RekeyFlags: OptionGroup {
    @RepeatedOption(
        "--keep-password-file",
        valueName: "file",
        help: "Also keep the keyslots this password opens (for example a recovery password)."
    )
    var keepPasswordFiles: [String]
    @Flag("--drop-keyslots", help: "Remove the keyslots that no credential given opens, instead of refusing.")
    var dropKeyslots: Bool
    @Flag(
        "--drop-foreign",
        help: "Delete other devices' ThisDeviceOnly items, which cannot be sealed again, instead of refusing."
    )
    var dropForeign: Bool

    /// Whether any of these options was given (they only make sense with a rekey).
    var isGiven: Bool { !keepPasswordFiles.isEmpty || dropKeyslots || dropForeign }

    /// The library options: the current credentials, then each extra password.
    /// - Parameter tpm2: How to reach this machine's TPM: a TPM2 keyslot is kept when the TPM
    ///   unseals it (Spec/tpm2.md, L-TPM-4), without `--tpm2` on the command line.
    func options(current: Credentials, tpm2: TPM2Unlock) throws -> RekeyOptions {
        var credentials = [current]
        if current.tpm2 == nil {
            // Without --tpm2 the TPM is asked only for keyslots without a PIN: a command that was
            // not told to use the TPM never asks for its PIN (Spec/cli.md section 3).
            var machine = Credentials()
            machine.tpm2 = TPM2Unlock(device: tpm2.device)
            credentials.append(machine)
        }
        for file in keepPasswordFiles {
            let password = try CredentialOptions(passwordFile: file, passwordEnv: nil, passwordFileEnv: nil)
                .password(confirm: false, prompt: "Password")
            credentials.append(Credentials(password: password, keyFile: current.keyFile))
        }
        return RekeyOptions(
            credentials: credentials,
            unopenedKeyslots: dropKeyslots ? .drop : .refuse,
            foreignItems: dropForeign ? .drop : .refuse
        )
    }

    /// One sentence about what a rekey did.
    static func summary(_ report: RekeyReport) -> String {
        var text =
            "replaced the master key (\(report.resealed) item\(report.resealed == 1 ? "" : "s") sealed again"
        if !report.droppedKeyslots.isEmpty {
            text +=
                "; removed keyslot\(report.droppedKeyslots.count == 1 ? "" : "s") "
                + report.droppedKeyslots.map { "#\($0)" }.joined(separator: ", ")
        }
        if !report.droppedItems.isEmpty {
            let count = report.droppedItems.count
            text += "; deleted \(count) other device's item\(count == 1 ? "" : "s")"
        }
        return text + ")"
    }
}
