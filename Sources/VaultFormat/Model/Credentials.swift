// vault: what a caller offers to unlock a vault.

/// The credentials offered to open a vault: any combination of a password, a key
/// file's contents and the device secret.
public struct Credentials: Sendable {
    /// The passphrase's UTF-8 bytes, exactly as typed. Readers and writers of a format 1.1
    /// file derive keys from its NFC form (``PasswordNormalization``, R11-PW-1); 1.0 files
    /// use the bytes as they are.
    public var password: SecretBytes?
    /// Every byte of the key file.
    public var keyFile: SecretBytes?
    /// This machine's device secret.
    public var deviceSecret: DeviceSecret?

    /// Creates a set of credentials.
    public init(password: SecretBytes? = nil, keyFile: SecretBytes? = nil, deviceSecret: DeviceSecret? = nil) {
        self.password = password
        self.keyFile = keyFile
        self.deviceSecret = deviceSecret
    }

    /// A password given as a string.
    public static func password(_ text: String, deviceSecret: DeviceSecret? = nil) -> Credentials {
        Credentials(password: SecretBytes(utf8: text), deviceSecret: deviceSecret)
    }
}
