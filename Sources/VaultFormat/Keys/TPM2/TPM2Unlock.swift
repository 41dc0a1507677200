// vault: what a caller offers to unseal a TPM2 keyslot.

import Synchronization

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
    /// What the opens made with this request learned, shared by every copy of it: one command
    /// opens a vault several times (a rekey's candidates, a merge's three files), and must ask
    /// for the PIN once and spend at most one dictionary-attack failure (R-TPM-4).
    package let memory = TPM2UnlockMemory()

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

/// The PIN one ``TPM2Unlock`` obtained, whether the TPM refused it, and the TPM's first refusal.
package final class TPM2UnlockMemory: Sendable {
    private struct State: Sendable {
        var pin: SecretBytes?
        var pinRefused = false
        var refusal: (any Error & Sendable)?
    }
    private let state = Mutex(State())

    package init() {}

    /// The PIN obtained before, or `obtain()`'s, kept for the next open.
    package func pin(_ obtain: () throws -> SecretBytes) throws -> SecretBytes {
        if let pin = state.withLock({ $0.pin }) { return pin }
        let pin = try obtain()
        state.withLock { $0.pin = $0.pin ?? pin }
        return pin
    }

    /// Whether the TPM refused the PIN (wrong, or locked out): no binding with a PIN is tried again.
    package var pinRefused: Bool {
        get { state.withLock { $0.pinRefused } }
        set { state.withLock { $0.pinRefused = newValue } }
    }

    /// The first refusal an open met, for a message that says why the TPM did not help.
    package var refusal: (any Error & Sendable)? { state.withLock { $0.refusal } }

    package func record(_ error: any Error & Sendable) {
        state.withLock { $0.refusal = $0.refusal ?? error }
    }
}
