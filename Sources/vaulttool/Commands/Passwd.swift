// vaulttool passwd: change the password, add or remove key files and recovery keyslots.

import FoundationEssentials
import Glibc
import VaultIO

/// `vaulttool passwd --password-file <file> --new-password-file <file> <vault>`.
struct Passwd: Command {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Change the password, or add or remove key-file and recovery keyslots.",
        discussion: """
            Without an action option, replaces the password of the keyslot the current credential
            opens; the new password comes from --new-password-file, --new-password-env,
            --new-password-file-env or a prompt.

            Changing the password and removing a keyslot or key file also replace the master key and
            seal every item again (as 'vaulttool rekey' does), so that the old credential, even with an
            old copy of the vault, opens nothing written afterwards. Every other keyslot is kept only
            if a credential given opens it (the current one, --keep-password-file, this device's
            secret); otherwise passwd refuses and lists them, unless --drop-keyslots. --no-rekey keeps
            the master key: the old credential, with a copy of the vault made before, then still opens
            items written later. Adding a key file or recovery keyslot never rekeys.

            A key-file keyslot (--add-key-file, --generate-key-file) is an alternative way in: the
            key file alone opens the vault, without the password and without any work factor, so
            it must be as secret as a key. It needs at least 32 bytes; --generate-key-file writes
            32 random bytes.
            """
    )
    @Option("--new-password-file", valueName: "file", help: "Read the new password from a file.")
    var newPasswordFile: String?
    @Option(
        "--new-password-env",
        valueName: "name",
        help: "The new password is the value of environment variable <name>."
    )
    var newPasswordEnv: String?
    @Option(
        "--new-password-file-env",
        valueName: "name",
        help: "Read the new password from the file named by environment variable <name>."
    )
    var newPasswordFileEnv: String?
    @Option(
        "--add-key-file",
        valueName: "file",
        help: "Add a keyslot that this key file alone opens (a second way in)."
    )
    var addKeyFile: String?
    @Option(
        "--generate-key-file",
        valueName: "file",
        help: "Write a new 32-byte random key file and add a keyslot that it alone opens."
    )
    var generateKeyFile: String?
    @Flag("--remove-key-file", help: "Remove every key-file-only keyslot.") var removeKeyFile: Bool
    @Flag("--add-recovery", help: "Add a keyslot for a generated recovery password (printed once).")
    var addRecovery: Bool
    @Option("--remove-keyslot", valueName: "index", help: "Remove the keyslot at <index>.") var removeKeyslot: String?
    @Flag("--add-tpm2", help: "Add a keyslot that this machine's TPM unseals (Spec/tpm2.md).") var addTPM2: Bool
    @Option("--tpm2-pcrs", valueName: "list", help: "With --add-tpm2: bind to these SHA-256 PCRs, such as 7 or 0,2,7.")
    var tpm2PCRs: String?
    @Flag("--tpm2-pin", help: "With --add-tpm2: the TPM also asks for a PIN (VAULTTOOL_TPM2_PIN_FILE or a prompt).")
    var tpm2PIN: Bool
    @Flag("--tpm2-only", help: "Allow the TPM to be the only way into the vault (a cleared TPM then loses it).")
    var tpm2Only: Bool
    @Flag("--no-rekey", help: "Keep the master key: the old credential still works with an old copy of the vault.")
    var noRekey: Bool
    @Group var rekeyFlags: RekeyFlags
    @Group var kdfOptions: KDFOptions
    @Group(specs: CredentialOptions.forWriting) var credentialOptions: CredentialOptions
    @Argument(.vault) var path: String

    enum Action {
        case changePassword, addKeyFile(String), generateKeyFile(String), removeKeyFiles, addRecovery
        case removeKeyslot(Int)
        case addTPM2(pcrs: [Int])
    }

    private(set) var action = Action.changePassword
    /// The new password's source (`--new-password-…`).
    private var newPassword: CredentialOptions {
        get throws {
            try CredentialOptions(
                passwordFile: newPasswordFile,
                passwordEnv: newPasswordEnv,
                passwordFileEnv: newPasswordFileEnv
            )
        }
    }
    /// Whether the action replaces the master key (L-KS-5): a change or removal, unless `--no-rekey`.
    private(set) var rekeys = false

    mutating func validate() throws {
        var actions = [Action]()
        if let file = addKeyFile { actions.append(.addKeyFile(file)) }
        if let file = generateKeyFile { actions.append(.generateKeyFile(file)) }
        if removeKeyFile { actions.append(.removeKeyFiles) }
        if addRecovery { actions.append(.addRecovery) }
        if let text = removeKeyslot {
            guard let index = Int(text), index >= 0 else { throw UsageError("'--remove-keyslot' needs an index") }
            actions.append(.removeKeyslot(index))
        }
        if addTPM2 {
            actions.append(.addTPM2(pcrs: try Self.pcrs(tpm2PCRs)))
        } else if tpm2PCRs != nil || tpm2PIN {
            throw UsageError("'--tpm2-pcrs' and '--tpm2-pin' go with '--add-tpm2'")
        }
        guard actions.count <= 1 else { throw UsageError("Give one action at a time") }
        action = actions.first ?? .changePassword
        switch action {
        case .addKeyFile, .generateKeyFile, .addRecovery:
            // These add a way in and remove none: allowing a TPM-only vault would say nothing.
            if tpm2Only { throw UsageError("'--tpm2-only' goes with an action that removes or replaces keyslots") }
        default: break
        }
        _ = try newPassword  // refuses two new-password sources before anything is opened
        if case .changePassword = action {
        } else if try newPassword.hasPasswordSource {
            throw UsageError("The '--new-password-…' options only go with a password change")
        }
        switch action {
        case .changePassword, .removeKeyFiles, .removeKeyslot: rekeys = !noRekey
        case .addKeyFile, .generateKeyFile, .addRecovery, .addTPM2:
            if noRekey { throw UsageError("'--no-rekey' only goes with a change or removal") }
            rekeys = false
        }
        if rekeyFlags.isGiven && !rekeys {
            throw UsageError(
                "'--keep-password-file', '--drop-keyslots' and '--drop-foreign' only go with a rekeying action"
            )
        }
    }

    /// `PCRs 0,2,7` or `no PCRs`, as `passwd` and `inspect` say it.
    static func describe(pcrs: [Int]) -> String {
        pcrs.isEmpty ? "no PCRs" : "PCRs " + pcrs.map(String.init).joined(separator: ",")
    }

    /// `7` or `0,2,7`: PCR numbers from 0 to 23, each once; no option, no PCRs. An empty value is
    /// refused: an unset variable in a script must not silently drop the PCR binding.
    static func pcrs(_ text: String?) throws -> [Int] {
        guard let text else { return [] }
        let pcrs = try text.split(separator: ",", omittingEmptySubsequences: false).map { part in
            guard let pcr = Int(part), (0..<24).contains(pcr) else {
                throw UsageError("'--tpm2-pcrs' takes PCR numbers from 0 to 23 separated by commas, such as 7 or 0,2,7")
            }
            return pcr
        }
        guard Set(pcrs).count == pcrs.count else { throw UsageError("'--tpm2-pcrs' names a PCR twice") }
        return pcrs.sorted()
    }

    func run() throws {
        let credentials = try credentialOptions.credentials()
        // The one key derivation of the current credential; the write below reuses its key.
        let session = try VaultAccess.session(
            path,
            credentials: credentials,
            acceptRollback: credentialOptions.acceptRollback
        )
        let vault = session.vault
        let kdf: KDFParameters? = kdfOptions.isGiven ? try kdfOptions.resolve() : nil
        var recovery: String?
        if case .addRecovery = action {
            let generator = PasswordGenerator()
            recovery = "\(try generator.generate())-\(try generator.generate())"
        }
        let newSecret: SecretBytes? =
            if case .changePassword = action {
                try newPassword.password(confirm: true, prompt: "New password")
            } else { nil }
        let rekey = rekeys ? try rekeyFlags.options(current: credentials, tpm2: credentialOptions.tpm2Unlock) : nil
        // The new key file is read (or written) before the vault is touched.
        var newKeyFile: KeyFileDigest?
        if case .addKeyFile(let file) = action {
            newKeyFile = try KeyFileDigest.read(fileAt: file)
            try newKeyFile?.checkForNewKeyslot(path: file)  // R-KF-1
        }
        var generated: String?
        if case .generateKeyFile(let file) = action {
            newKeyFile = try KeyFileGenerator.generate(at: file)
            generated = file
        }
        // The TPM first: a PIN typed for a TPM that is not there is typed for nothing.
        if addTPM2 && tpm2PIN { try credentialOptions.tpm2Device.checkReachable() }
        let newPIN = addTPM2 && tpm2PIN ? try credentialOptions.sources.tpm2PIN(confirm: true) : nil
        var message: String
        do {
            VaultAccess.warnAboutLocation(of: vault)
            message = try Progress.run("Writing \(vault.path)") {
                try session.write { txn -> String in
                    txn.allowsTPM2Only = tpm2Only
                    let message = try change(
                        &txn,
                        opened: session.openedKeyslot(in: txn.keyslots),
                        credentials: credentials,
                        newSecret: newSecret,
                        newKeyFile: newKeyFile,
                        kdf: kdf,
                        recovery: recovery,
                        newPIN: newPIN
                    )
                    guard let rekey else { return message }
                    return message.dropLast() + "; " + RekeyFlags.summary(try txn.rekey(rekey)) + "."
                }
            }
        } catch {
            if let generated { unlink(generated) }  // no key file is left that opens nothing
            throw error
        }
        if rekeys {
            VaultAccess.refreshAgent(after: vault)
            message +=
                "\nCopies made before this change (backups, synced copies) still open with the old "
                + "credential and show what they hold; delete them."
        }
        Output.out(message + "\n")
        if let generated {
            Output.out("Wrote the key file \(generated) (32 random bytes); it alone opens the vault: keep it safe.\n")
        }
        if let recovery {
            Output.out("Recovery password (shown once; keep it offline): \(recovery)\n")
        }
    }

    /// Makes the keyslot change; the master key is replaced afterwards, in the same write.
    private func change(
        _ txn: inout VaultTransaction,
        opened: Int?,
        credentials: Credentials,
        newSecret: SecretBytes?,
        newKeyFile: KeyFileDigest?,
        kdf: KDFParameters?,
        recovery: String?,
        newPIN: SecretBytes?
    ) throws -> String {
        switch action {
        case .changePassword:
            switch try txn.changePassword(to: newSecret, keeping: credentials, openedKeyslot: opened, kdf: kdf) {
            case .added(let index): return "Added password keyslot #\(index)."
            case .changed(let index): return "Changed the password of keyslot #\(index)."
            }
        case .addKeyFile, .generateKeyFile:
            try txn.addKeyslot(.keyFile, credentials: Credentials(keyFileDigest: newKeyFile!))
            return "Added key-file keyslot #\(txn.keyslots.count - 1)."
        case .removeKeyFiles:
            let count = try txn.removeKeyFileKeyslots()
            return "Removed \(count) key-file keyslot\(count == 1 ? "" : "s")."
        case .addRecovery:
            try txn.addKeyslot(.password, credentials: .password(recovery!), kdf: kdf ?? .default)
            return "Added recovery keyslot #\(txn.keyslots.count - 1)."
        case .removeKeyslot(let index):
            guard txn.keyslots.indices.contains(index) else {
                throw VaultIOError(.keyslotNotFound, reason: "the vault has no keyslot #\(index)")
            }
            try txn.removeKeyslot(at: index, rekey: nil)
            return "Removed keyslot #\(index)."
        case .addTPM2(let pcrs):
            // txn.allowsTPM2Only already says what --tpm2-only allows.
            let index = try txn.addTPM2Keyslot(pcrs: pcrs, pin: newPIN, device: credentialOptions.tpm2Device)
            return "Added TPM2 keyslot #\(index) (\(Self.describe(pcrs: pcrs))\(newPIN == nil ? "" : ", PIN"))."
        }
    }
}
