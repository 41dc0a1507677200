// vault: the secrets behind the credential sources: passwords from the environment, prompts,
// passphrases and PINs, device secrets and identity files.

import Glibc

extension CredentialSources {
    /// The variable naming a file that holds a TPM2 keyslot's PIN, for programs without a terminal.
    public static let tpm2PINVariable = "VAULTTOOL_TPM2_PIN_FILE"
    /// The variable naming a file that holds the passphrase of sealed identity files (R12-TXT-3),
    /// for programs that run without a terminal (drivers, helpers, CI).
    public static let identityPassphraseVariable = "VAULTTOOL_IDENTITY_PASSPHRASE_FILE"

    /// A TPM2 PIN: from the file ``tpm2PINVariable`` names, else from ``prompt`` (`confirm` asks
    /// twice, for a new one).
    public func tpm2PIN(confirm: Bool) throws -> SecretBytes {
        try Self.tpm2PIN(confirm: confirm, prompt: prompt, mayPrompt: mayPrompt)
    }

    static func tpm2PIN(confirm: Bool, prompt: Prompt?, mayPrompt: Bool) throws -> SecretBytes {
        try secretFromFileOrPrompt(
            variable: tpm2PINVariable,
            what: "PIN",
            neverPrompts: "the TPM2 keyslot needs its PIN",
            label: confirm ? "New TPM PIN" : "TPM PIN",
            confirm: confirm,
            prompt: mayPrompt ? prompt : nil
        )
    }

    /// The passphrase of the sealed identity file at `path`: from the file
    /// ``identityPassphraseVariable`` names, else from ``prompt`` (`confirm` asks twice, for a new one).
    public func identityPassphrase(for path: String, confirm: Bool = false) throws -> SecretBytes {
        try Self.secretFromFileOrPrompt(
            variable: Self.identityPassphraseVariable,
            what: "passphrase",
            neverPrompts: "the identity file '\(path)' is sealed under a passphrase",
            label: "Passphrase for the identity \(path)",
            confirm: confirm,
            prompt: mayPrompt ? prompt : nil
        )
    }

    /// Reads the identity file at `path` through ``IdentityFile/load(at:passphrase:)``, asking for
    /// the passphrase of a sealed one (``identityPassphrase(for:confirm:)``).
    ///
    /// - Throws: ``VaultIOError/Code/invalidInput`` for a refused file (not a regular file of this
    ///   user with mode 0600, no identity line, a link), ``VaultIOError/Code/unreadableInput``,
    ///   or ``VaultFormatError/Code/wrongCredential`` for a wrong passphrase.
    public func loadIdentity(_ path: String) throws -> RecipientIdentity {
        do {
            return try Self.loadSecretFile(path, named: "the identity file", refusedWith: .invalidIdentity) {
                try IdentityFile.load(at: path) { try identityPassphrase(for: path) }
            }
        } catch let error as VaultFormatError where error.code == .wrongCredential {
            throw VaultFormatError(.wrongCredential, "wrong passphrase for the identity file '\(path)'")
        }
    }

    /// Reads a device secret through ``DeviceSecretFile/load(at:tpm2:)``, which refuses a file that
    /// is not a regular file of this user with mode 0600, or not 32 bytes.
    ///
    /// - Throws: as ``loadIdentity(_:)``, or the TPM's errors for a sealed device secret.
    public static func loadDeviceSecret(_ path: String, tpm2: TPM2Device? = nil) throws -> DeviceSecret {
        try loadSecretFile(path, named: "the device secret", refusedWith: .invalidDeviceSecret) {
            try DeviceSecretFile.load(at: path, tpm2: tpm2)
        }
    }

    /// Runs `load` on one of this user's secret files and words its refusals the same way for
    /// every kind: refused (`refused`, or a symbolic link) is invalid input, a file that cannot be
    /// read is unreadable input.
    private static func loadSecretFile<T>(
        _ path: String,
        named noun: String,
        refusedWith refused: VaultIOError.Code,
        _ load: () throws -> T
    ) throws -> T {
        do {
            return try load()
        } catch let error as VaultIOError where error.code == refused {
            throw VaultIOError(.invalidInput, path: path, reason: "\(noun) '\(path)' is refused: \(error.reason)")
        } catch let error as VaultIOError where error.errno == Errno(rawValue: ELOOP) {
            throw VaultIOError(
                .invalidInput,
                path: path,
                reason: "\(noun) '\(path)' is refused: it is a symbolic link; give the file it points to"
            )
        } catch let error as VaultIOError where error.code == .system {
            throw VaultIOError(
                .unreadableInput,
                path: path,
                reason: "cannot read \(noun) '\(path)': \(error.errno.map { "\($0)" } ?? error.description)"
            )
        }
    }

    /// The password held by environment variable `name`, which is then removed from this
    /// process's environment so that no child process inherits it.
    ///
    /// A value that is the absolute path of an existing file is refused: before 0.2,
    /// `--password-env` named a password file, and that value must not silently become
    /// the password (for example of a new vault). The message names the variable, never its value.
    static func passwordFromEnvironment(_ name: String) throws(VaultIOError) -> [UInt8] {
        guard let pointer = getenv(name), pointer.pointee != 0 else {
            throw VaultIOError(
                .invalidInput,
                reason: "environment variable \(name) is not set or empty; it must hold the password"
            )
        }
        let length = strlen(pointer)
        var bytes = [UInt8](repeating: 0, count: length)
        bytes.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: pointer, byteCount: length) }
        if pointer.pointee == CChar(UInt8(ascii: "/")) && access(pointer, F_OK) == 0 {
            SecretMemory.wipe(&bytes)
            throw VaultIOError(
                .invalidInput,
                reason: "environment variable \(name) names a file, but '--password-env' takes the password itself; "
                    + "use '--password-file-env \(name)' to read the password from that file"
            )
        }
        explicit_bzero(pointer, length)
        unsetenv(name)
        return bytes
    }

    /// Asks with ``prompt`` (twice when `confirm`); fails naming `otherwise` when there is no
    /// terminal.
    public func ask(_ label: String, confirm: Bool, otherwise: String) throws -> [UInt8] {
        try Self.ask(label, confirm: confirm, otherwise: otherwise, prompt: prompt)
    }

    private static func ask(_ label: String, confirm: Bool, otherwise: String, prompt: Prompt?) throws -> [UInt8] {
        guard var first = try prompt?("\(label): ") else {
            throw VaultIOError(
                .invalidInput,
                reason: "no \(inSentence(label)) given and no terminal to ask on; use \(otherwise)"
            )
        }
        if confirm {
            var second = try prompt?("Retype \(inSentence(label)): ") ?? []
            defer { SecretMemory.wipe(&second) }
            guard SecretMemory.equal(first, second) else {
                SecretMemory.wipe(&first)
                throw VaultIOError(.invalidInput, reason: "the two entries differ; nothing was changed")
            }
        }
        return first
    }

    /// A prompt's label inside a sentence: its first letter lowered, unless the first word is an
    /// acronym ("TPM PIN"); the rest, a path included, as it is.
    private static func inSentence(_ label: String) -> String {
        let letters = Array(label.prefix(2))
        if letters.count == 2, letters.allSatisfy(\.isUppercase) { return label }
        return label.prefix(1).lowercased() + label.dropFirst()
    }

    /// A short secret (a PIN, a passphrase) from the file that `variable` names, else from
    /// `prompt`; one trailing newline dropped, never empty, wiped after the copy.
    private static func secretFromFileOrPrompt(
        variable: String,
        what: String,
        neverPrompts reason: String,
        label: String,
        confirm: Bool,
        prompt: Prompt?
    ) throws -> SecretBytes {
        var bytes: [UInt8]
        let file = getenv(variable).map { String(cString: $0) } ?? ""
        if !file.isEmpty {
            bytes = try SecretInput.read(
                "\(what) file named by \(variable)",
                at: file,
                showingPath: false,
                limit: maximumPasswordByteCount
            )
        } else {
            guard let prompt else {
                throw VaultIOError(
                    .invalidInput,
                    reason: "\(reason), and this command never prompts: set \(variable) to a file holding the \(what)"
                )
            }
            bytes = try ask(
                label,
                confirm: confirm,
                otherwise: "\(variable) (a file holding the \(what))",
                prompt: prompt
            )
        }
        defer { SecretMemory.wipe(&bytes) }
        SecretMemory.trimNewline(&bytes)
        guard !bytes.isEmpty else { throw VaultIOError(.invalidInput, reason: "the \(what) is empty") }
        return SecretBytes(bytes: bytes, protection: .guarded)
    }
}
