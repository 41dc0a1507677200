// vault: what a caller offers to unseal a TPM2 keyslot.

/// A TPM, named by its TCTI: the string `Tss2_TctiLdr_Initialize` takes.
///
/// Examples: `device:/dev/tpmrm0` (the kernel's resource manager), `swtpm:path=/run/swtpm/sock`.
/// VaultIO's `TPM2Device.default` reads `VAULT_TPM2_TCTI`.
///
/// Spec: Spec/tpm2.md, L-TPM-1.
public struct TPM2Device: Hashable, Sendable, CustomStringConvertible {
    /// The TCTI configuration string.
    public var tcti: String

    /// A TPM reached through `tcti`.
    public init(tcti: String) { self.tcti = tcti }

    /// The kernel's TPM resource manager.
    public static let kernel = TPM2Device(tcti: "device:/dev/tpmrm0")

    public var description: String { tcti }
}

/// Unlocking with this machine's TPM: the PIN of a TPM2 keyslot that needs one, and the TPM.
///
/// Spec: Spec/tpm2.md, R-TPM-4 and L-TPM-1.
public struct TPM2Unlock: Sendable {
    /// The PIN, when known in advance.
    public var pin: SecretBytes?
    /// Asks for the PIN, called only when a keyslot needs one and ``pin`` is `nil`.
    public var askPIN: (@Sendable () throws -> SecretBytes)?
    /// The TPM; `nil` for VaultIO's default (`VAULT_TPM2_TCTI`, else ``TPM2Device/kernel``).
    public var device: TPM2Device?

    /// Unlocking with `device`, and `pin` for a keyslot that needs one.
    public init(pin: SecretBytes? = nil, device: TPM2Device? = nil) {
        self.pin = pin
        self.device = device
    }

    /// Unlocking with `device`, asking for the PIN only when a keyslot needs one.
    public init(device: TPM2Device? = nil, askPIN: @escaping @Sendable () throws -> SecretBytes) {
        self.askPIN = askPIN
        self.device = device
    }
}
