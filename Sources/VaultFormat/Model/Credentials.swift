// vault: what a caller offers to unlock a vault.

/// The credentials offered to open a vault: any combination of a password, a key
/// file's contents and the device secret.
public struct Credentials: Sendable {
    /// The passphrase's UTF-8 bytes, exactly as typed. Readers and writers of a format 1.1
    /// file derive keys from its NFC form (`PasswordNormalization`, R11-PW-1); 1.0 files
    /// use the bytes as they are.
    public var password: SecretBytes?
    /// Every byte of the key file.
    ///
    /// For a large key file, set ``keyFileDigest`` instead: it is computed as a stream.
    public var keyFile: SecretBytes?
    /// The key file hashed as a stream (``KeyFileDigest/Hasher``); used when ``keyFile`` is `nil`.
    public var keyFileDigest: KeyFileDigest?
    /// This machine's device secret.
    public var deviceSecret: DeviceSecret?
    /// A recipient identity: opens a format 1.2 vault whose header names its public key
    /// (Spec/format-v1.2.md, R12-RCP-3).
    public var identity: RecipientIdentity?
    /// Unlock with this machine's TPM: VaultIO unseals the file's TPM2 keyslots (Spec/tpm2.md).
    public var tpm2: TPM2Unlock?
    /// Key files unsealed from TPM2 bindings, by the salt of the one keyslot each opens (R-TPM-4).
    package var unsealedKeyFiles: [[UInt8]: KeyFileDigest] = [:]

    /// Creates a set of credentials.
    public init(password: SecretBytes? = nil, keyFile: SecretBytes? = nil, deviceSecret: DeviceSecret? = nil) {
        self.password = password
        self.keyFile = keyFile
        self.deviceSecret = deviceSecret
    }

    /// Credentials with a key file that was hashed as a stream.
    public init(password: SecretBytes? = nil, keyFileDigest: KeyFileDigest, deviceSecret: DeviceSecret? = nil) {
        self.password = password
        self.keyFileDigest = keyFileDigest
        self.deviceSecret = deviceSecret
    }

    /// Whether a key file is offered, as bytes or as a digest.
    public var hasKeyFile: Bool { keyFile != nil || keyFileDigest != nil }

    /// The offered key file's digest: ``keyFile`` hashed, or else ``keyFileDigest``.
    public var resolvedKeyFile: KeyFileDigest? { keyFile.map(KeyFileDigest.init(contents:)) ?? keyFileDigest }

    /// An identity alone, for a vault of which it is a recipient (format 1.2).
    public static func identity(_ identity: RecipientIdentity, deviceSecret: DeviceSecret? = nil) -> Credentials {
        var credentials = Credentials(deviceSecret: deviceSecret)
        credentials.identity = identity
        return credentials
    }

    /// This machine's TPM alone, for a vault with a TPM2 keyslot (Spec/tpm2.md).
    public static func tpm2(
        pin: SecretBytes? = nil,
        device: TPM2Device? = nil,
        deviceSecret: DeviceSecret? = nil
    ) -> Credentials {
        var credentials = Credentials(deviceSecret: deviceSecret)
        credentials.tpm2 = TPM2Unlock(pin: pin, device: device)
        return credentials
    }

    /// Whether a key file, a password, an identity or a device secret is offered besides the TPM.
    package var offersMoreThanTPM2: Bool {
        password != nil || hasKeyFile || deviceSecret != nil || identity != nil
    }

    /// A password given as a string.
    public static func password(_ text: String, deviceSecret: DeviceSecret? = nil) -> Credentials {
        Credentials(password: SecretBytes(utf8: text), deviceSecret: deviceSecret)
    }
}
