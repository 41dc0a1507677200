// vaulttool passwd: change the password, add or remove key files and recovery keyslots.

import Foundation
import VaultFormat
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
            Only keyslots change: every item is copied as it is, and the vault's master key stays.
            A key-file keyslot (--add-key-file, --generate-key-file) is an alternative way in: the
            key file alone opens the vault, without the password and without any work factor, so
            it must be as secret as a key. It needs at least 32 bytes; --generate-key-file writes
            32 random bytes.
            """
    )
    static let options =
        [
            OptionSpec(names: ["--new-password-file"], valueName: "file", help: "Read the new password from a file."),
            OptionSpec(
                names: ["--new-password-env"],
                valueName: "name",
                help: "The new password is the value of environment variable <name>."
            ),
            OptionSpec(
                names: ["--new-password-file-env"],
                valueName: "name",
                help: "Read the new password from the file named by environment variable <name>."
            ),
            OptionSpec(
                names: ["--add-key-file"],
                valueName: "file",
                help: "Add a keyslot that this key file alone opens (a second way in)."
            ),
            OptionSpec(
                names: ["--generate-key-file"],
                valueName: "file",
                help: "Write a new 32-byte random key file and add a keyslot that it alone opens."
            ),
            OptionSpec(names: ["--remove-key-file"], valueName: nil, help: "Remove every key-file-only keyslot."),
            OptionSpec(
                names: ["--add-recovery"],
                valueName: nil,
                help: "Add a keyslot for a generated recovery password (printed once)."
            ),
            OptionSpec(names: ["--remove-keyslot"], valueName: "index", help: "Remove the keyslot at <index>."),
        ] + KDFOptions.specs + CredentialOptions.specs
    static let arguments = [ArgumentSpec(name: "vault", help: "The vault file.")]

    enum Action {
        case changePassword, addKeyFile(String), generateKeyFile(String), removeKeyFiles, addRecovery, removeKeyslot(
            Int
        )
    }

    let path: String
    let action: Action
    let newPassword: CredentialOptions
    let kdfOptions: KDFOptions
    let credentialOptions: CredentialOptions

    init(_ parsed: ParsedArguments) throws {
        path = parsed.positional(0)!
        credentialOptions = try CredentialOptions(parsed)
        kdfOptions = try KDFOptions(parsed)
        var actions = [Action]()
        if let file = parsed.value("--add-key-file") { actions.append(.addKeyFile(file)) }
        if let file = parsed.value("--generate-key-file") { actions.append(.generateKeyFile(file)) }
        if parsed.flag("--remove-key-file") { actions.append(.removeKeyFiles) }
        if parsed.flag("--add-recovery") { actions.append(.addRecovery) }
        if let text = parsed.value("--remove-keyslot") {
            guard let index = Int(text), index >= 0 else { throw UsageError("'--remove-keyslot' needs an index") }
            actions.append(.removeKeyslot(index))
        }
        guard actions.count <= 1 else { throw UsageError("Give one action at a time") }
        action = actions.first ?? .changePassword
        newPassword = try CredentialOptions(
            passwordFile: parsed.value("--new-password-file"),
            passwordEnv: parsed.value("--new-password-env"),
            passwordFileEnv: parsed.value("--new-password-file-env")
        )
        if case .changePassword = action {
        } else if newPassword.hasPasswordSource {
            throw UsageError("The '--new-password-…' options only go with a password change")
        }
    }

    func run() throws {
        let credentials = try credentialOptions.credentials()
        let opened = try VaultAccess.snapshot(path, credentials: credentials).openedKeyslot
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
        // The new key file is read (or written) before the vault is touched.
        var newKeyFile: KeyFileDigest?
        if case .addKeyFile(let file) = action { newKeyFile = try KeyFiles.readForNewKeyslot(file) }
        let vault = try VaultAccess.vault(path, credentials: credentials)
        var generated: String?
        if case .generateKeyFile(let file) = action {
            newKeyFile = try KeyFiles.generate(file)
            generated = file
        }
        let message: String
        do {
            message = try change(
                vault,
                opened: opened,
                credentials: credentials,
                kdf: kdf,
                newSecret: newSecret,
                newKeyFile: newKeyFile,
                recovery: recovery
            )
        } catch {
            if let generated { KeyFiles.discardGenerated(generated) }
            throw error
        }
        Output.out(message + "\n")
        if let generated {
            Output.out("Wrote the key file \(generated) (32 random bytes); it alone opens the vault: keep it safe.\n")
        }
        if let recovery {
            Output.out("Recovery password (shown once; keep it offline): \(recovery)\n")
        }
    }

    /// Makes the change in one write and returns the sentence that reports it.
    private func change(
        _ vault: Vault,
        opened: Int,
        credentials: Credentials,
        kdf: KDFParameters?,
        newSecret: SecretBytes?,
        newKeyFile: KeyFileDigest?,
        recovery: String?
    ) throws -> String {
        try VaultAccess.write(vault) { txn -> String in
            switch action {
            case .changePassword:
                let slots = txn.keyslots
                let index =
                    slots.indices.contains(opened) && slots[opened].kind.usesPassword
                    ? opened : slots.firstIndex { $0.kind.usesPassword }
                var next = Credentials(password: newSecret, keyFile: credentials.keyFile)
                next.keyFileDigest = credentials.keyFileDigest
                next.deviceSecret = credentials.deviceSecret
                guard let index else {
                    try txn.addKeyslot(.password, credentials: next, kdf: kdf ?? .default)
                    return "Added password keyslot #\(txn.keyslots.count - 1)."
                }
                // Without KDF options, the slot keeps its cost unless it is below the floor.
                let kept = slots[index].kdf.flatMap { $0.isWeak ? nil : $0 }
                try txn.replaceKeyslot(
                    at: index,
                    kind: slots[index].kind,
                    credentials: next,
                    kdf: kdf ?? kept ?? .default
                )
                return "Changed the password of keyslot #\(index)."
            case .addKeyFile, .generateKeyFile:
                try txn.addKeyslot(.keyFile, credentials: Credentials(keyFileDigest: newKeyFile!))
                return "Added key-file keyslot #\(txn.keyslots.count - 1)."
            case .removeKeyFiles:
                let indices = txn.keyslots.indices.filter { txn.keyslots[$0].kind == .keyFile }
                guard !indices.isEmpty else {
                    throw ToolError("the vault has no key-file keyslot", exitCode: .notFound)
                }
                for index in indices.reversed() { try txn.removeKeyslot(at: index) }
                return "Removed \(indices.count) key-file keyslot\(indices.count == 1 ? "" : "s")."
            case .addRecovery:
                try txn.addKeyslot(.password, credentials: .password(recovery!), kdf: kdf ?? .default)
                return "Added recovery keyslot #\(txn.keyslots.count - 1)."
            case .removeKeyslot(let index):
                guard txn.keyslots.indices.contains(index) else {
                    throw ToolError("the vault has no keyslot #\(index)", exitCode: .notFound)
                }
                try txn.removeKeyslot(at: index)
                return "Removed keyslot #\(index)."
            }
        }
    }
}
