// vault: where the credentials to open a vault come from, and the one rule for reading them.

import Glibc
import Synchronization

/// Where the credentials that open a vault come from: a password source, a key file, a device
/// secret, an identity file, the TPM. Never the secrets themselves: they are read when
/// ``credentials(confirm:prompt:)`` is called, each from its source, and wiped after use.
///
/// This is what `vaulttool`'s credential options name, and the one reading of them: an app with
/// settings of its own (a config file naming a password file, a service's identity file) opens
/// a vault the same way, with the same limits, errors and prompts.
///
/// ```swift
/// var sources = CredentialSources(password: .file("/run/secrets/vault-pw"))
/// sources.identityFile = "/etc/app/identity"
/// let credentials = try sources.credentials()
/// let vault = try Vault(path: "app.vault", credentials: credentials)
/// ```
///
/// Spec: Spec/cli.md, "Credentials".
public struct CredentialSources: Sendable {
    /// Where a password comes from.
    public enum Password: Sendable, Equatable {
        /// A file (one trailing newline dropped).
        case file(String)
        /// The environment variable of this name holds the password itself; it is removed from
        /// this process's environment once read, so no child inherits it.
        case environment(String)
        /// The environment variable of this name holds the path of a password file.
        case fileNamedByEnvironment(String)
        /// Standard input, read to its end (one trailing newline dropped).
        case standardInput
    }

    /// Asks on a terminal without echo, showing `text` (such as `"Password: "`).
    /// Returns the line without its newline, or `nil` when there is no terminal.
    public typealias Prompt = @Sendable (_ text: String) throws -> [UInt8]?

    /// The password's source; `nil` to ask ``prompt`` when nothing else is named.
    public var password: Password?
    /// A key file, hashed as a stream.
    public var keyFile: String?
    /// A device secret file (Spec/format-v1.md, device keyslots).
    public var deviceSecretFile: String?
    /// An identity file (format 1.2 recipients).
    public var identityFile: String?
    /// Whether to unseal a TPM2 keyslot with ``tpm2Device``.
    public var tpm2 = false
    /// The TPM to use.
    public var tpm2Device = TPM2Device.default
    /// How to ask for a password on a terminal; `nil` never asks.
    public var prompt: Prompt?
    /// Whether a sealed identity's passphrase or a TPM PIN may be asked for with ``prompt``;
    /// programs that run inside other programs (drivers, credential helpers) set `false`
    /// (R12-TXT-3) and read them from ``identityPassphraseVariable`` and ``tpm2PINVariable``.
    public var mayPrompt = true
    /// What the error says to use instead when there is no terminal to ask for a password on.
    public var promptAlternatives = "--password-file, --password-stdin, --password-env or --password-file-env"
    /// The TPM request, made at first use and shared by every copy: one command asks for the PIN
    /// once and spends at most one failure (Spec/tpm2.md R-TPM-4).
    private let tpm2Request = TPM2Request()

    /// Sources with the given password source and nothing else; set the other properties as needed.
    public init(password: Password? = nil, prompt: Prompt? = nil) {
        self.password = password
        self.prompt = prompt
    }

    // MARK: - What is named

    /// Whether a password source is named (not only the prompt).
    public var hasPasswordSource: Bool { password != nil }

    /// Whether no credential is named at all (then the standard vault opens with this user's
    /// device secret: ``withUsersDeviceSecret``).
    public var namesNoCredential: Bool {
        password == nil && keyFile == nil && deviceSecretFile == nil && identityFile == nil && !tpm2
    }

    /// Whether a credential other than a device secret is named: a password source, a key file,
    /// an identity or the TPM. A device secret alone opens only a device keyslot, so tools that
    /// can also use an agent's keys (git's drivers) ask the agent when this is `false`.
    public var namesCredentialOtherThanDeviceSecret: Bool {
        password != nil || keyFile != nil || identityFile != nil || tpm2
    }

    /// These sources with this user's device secret (``DeviceSecretFile/defaultPath``) when they
    /// name no credential and that file exists; `nil` otherwise. The one statement of "no
    /// credential named: this user's device secret", as ``Vault/standard(directory:configuration:)``
    /// opens the standard vault.
    public var withUsersDeviceSecret: CredentialSources? {
        guard namesNoCredential, let device = DeviceSecretFile.defaultPath else { return nil }
        var status = stat()
        guard stat(device, &status) == 0 else { return nil }
        var sources = self
        sources.deviceSecretFile = device
        return sources
    }

    // MARK: - Reading

    /// Reads the credentials the sources name.
    ///
    /// Without a password source, the password is asked for with ``prompt`` (twice when
    /// `confirm` is set) unless a key file, device secret, identity or the TPM is named: any of
    /// those alone may open the vault.
    ///
    /// - Parameters:
    ///   - confirm: Ask twice for a prompted password (a new vault).
    ///   - label: The prompt's text.
    /// - Throws: ``VaultIOError/Code/invalidInput`` or ``VaultIOError/Code/unreadableInput`` naming
    ///   the source; a ``VaultFormatError`` ``VaultFormatError/Code/wrongCredential`` for a wrong
    ///   identity passphrase; the errors of ``DeviceSecretFile/load(at:tpm2:)``.
    public func credentials(confirm: Bool = false, prompt label: String = "Password") throws -> Credentials {
        var credentials = Credentials()
        if let keyFile {
            // Hashed as a stream: the key file's bytes are never held in memory all at once.
            credentials.keyFileDigest = try KeyFileDigest.read(fileAt: keyFile)
        }
        if hasPasswordSource || (keyFile == nil && deviceSecretFile == nil && identityFile == nil && !tpm2) {
            credentials.password = try password(confirm: confirm, prompt: label)
        }
        if tpm2 { credentials.tpm2 = tpm2Unlock }
        if let deviceSecretFile {
            credentials.deviceSecret = try Self.loadDeviceSecret(deviceSecretFile, tpm2: tpm2Device)
        }
        if let identityFile { credentials.identity = try loadIdentity(identityFile) }
        return credentials
    }

    /// The TPM request of ``tpm2``: the PIN is read only when a keyslot needs one.
    public var tpm2Unlock: TPM2Unlock {
        tpm2Request.unlock {
            let (prompt, mayPrompt) = (prompt, mayPrompt)
            return TPM2Unlock(device: tpm2Device) {
                try Self.tpm2PIN(confirm: false, prompt: prompt, mayPrompt: mayPrompt)
            }
        }
    }

    /// The password from its source, or from ``prompt``; one trailing newline dropped.
    ///
    /// - Throws: ``VaultIOError/Code/invalidInput`` for an empty password, a variable that is not
    ///   set, no terminal; ``VaultIOError/Code/unreadableInput`` for a file that cannot be read.
    public func password(confirm: Bool, prompt label: String) throws -> SecretBytes {
        var bytes: [UInt8]
        let limit = Self.maximumPasswordByteCount
        switch password {
        case .file(let path)?:
            bytes = try SecretInput.read("password file", at: path, limit: limit)
        case .environment(let name)?:
            bytes = try Self.passwordFromEnvironment(name)
        case .fileNamedByEnvironment(let name)?:
            guard let path = getenv(name).map({ String(cString: $0) }), !path.isEmpty else {
                throw VaultIOError(
                    .invalidInput,
                    reason: "environment variable \(name) is not set; it must name a password file"
                )
            }
            // The value is a path, but it is still never echoed: a user may have put the
            // password itself there. Name the variable instead.
            bytes = try SecretInput.read("password file named by \(name)", at: path, showingPath: false, limit: limit)
        case .standardInput?:
            bytes = try SecretInput.read("password on standard input", from: STDIN_FILENO, limit: limit)
        case nil:
            bytes = try ask(label, confirm: confirm, otherwise: promptAlternatives)
        }
        defer { SecretMemory.wipe(&bytes) }
        SecretMemory.trimNewline(&bytes)
        guard !bytes.isEmpty else { throw VaultIOError(.invalidInput, reason: "the password is empty") }
        return SecretBytes(bytes: bytes, protection: .guarded)
    }

    /// The largest password file (or password on standard input), 64 KiB.
    public static let maximumPasswordByteCount = 64 << 10
}

/// Holds the TPM request of one set of sources, shared by every copy of it.
private final class TPM2Request: Sendable {
    private let state = Mutex<TPM2Unlock?>(nil)

    func unlock(_ make: () -> TPM2Unlock) -> TPM2Unlock {
        state.withLock { held in
            if let held { return held }
            let unlock = make()
            held = unlock
            return unlock
        }
    }
}
