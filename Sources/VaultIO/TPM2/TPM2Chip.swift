// vault: sealing and unsealing 32 bytes with this machine's TPM (CVaultTPM, libtss2 loaded on use).

internal import CVaultTPM
import Glibc
import Synchronization
public import VaultFormat

extension TPM2Device {
    /// `$VAULT_TPM2_TCTI` when set and not empty, else the kernel's resource manager
    /// (`device:/dev/tpmrm0`).
    ///
    /// Spec: Spec/tpm2.md, L-TPM-1.
    public static var `default`: TPM2Device {
        guard let value = getenv("VAULT_TPM2_TCTI"), value.pointee != 0 else { return .kernel }
        return TPM2Device(tcti: String(cString: value))
    }
}

extension TPM2Device {
    /// Checks that this TPM answers (it reads the TPM's dictionary-attack counters), so that a
    /// caller asks for a PIN only when the TPM can use it.
    ///
    /// - Throws: ``VaultIOError/Code/tpm2Unavailable`` when the TPM or the TSS2 libraries cannot
    ///   be reached; another L-TPM-3 code when the TPM refuses.
    public func checkReachable() throws(VaultIOError) {
        _ = try TPM2Chip.lockoutState(device: self)
    }
}

/// The TPM calls: one seal, one unseal, the dictionary-attack counters.
///
/// Spec: Spec/tpm2.md §2 (the objects) and L-TPM-3 (the errors).
package enum TPM2Chip {
    /// The size of every secret a TPM2 keyslot or sealed device secret holds.
    static let secretByteCount = 32

    /// One TPM conversation at a time in this process. A TPM reached without a resource manager
    /// (swtpm, `device:/dev/tpm0`) holds a few transient objects only, and two threads that each
    /// load a parent and an object run it out of memory (TPM_RC_OBJECT_MEMORY).
    private static let conversation = Mutex(())

    /// Seals `secret` (32 bytes) under this TPM's storage parent.
    ///
    /// - Parameters:
    ///   - pin: The PIN, or `nil` for an object without one (then it does not count failures).
    ///   - pcrMask: The SHA-256 PCRs to bind to, at their current values; 0 for none.
    static func seal(
        _ secret: SecretBytes,
        pin: SecretBytes?,
        pcrMask: UInt32,
        device: TPM2Device
    ) throws(VaultIOError) -> TPM2SealedObject {
        let auth = pin.map(TPM2SealedObject.authValue(pin:))
        var out = vtpm_sealed()
        var rc: UInt32 = 0
        var why = [CChar](repeating: 0, count: 256)
        let status = secret.withUnsafeBytes { s in
            withAuth(auth) { a, n in
                conversation.withLock { _ in
                    vtpm_seal(
                        device.tcti,
                        s.bindMemory(to: UInt8.self).baseAddress,
                        s.count,
                        a,
                        n,
                        pcrMask,
                        &out,
                        &rc,
                        &why,
                        why.count
                    )
                }
            }
        }
        try check(status, rc: rc, why: why, device: device, operation: "seal")
        return TPM2SealedObject(
            requiresPIN: pin != nil,
            pcrMask: pcrMask,
            publicArea: bytes(of: &out.public_area, count: out.public_length),
            privateArea: bytes(of: &out.private_area, count: out.private_length)
        )
    }

    /// Unseals `object`: the 32 bytes it holds.
    static func unseal(
        _ object: TPM2SealedObject,
        pin: SecretBytes?,
        device: TPM2Device
    ) throws(VaultIOError) -> SecretBytes {
        var sealed = try cObject(object, operation: "unseal")
        let auth = object.requiresPIN ? pin.map(TPM2SealedObject.authValue(pin:)) : nil
        if object.requiresPIN && auth == nil {
            throw VaultIOError(.tpm2PINRequired, operation: "unseal", reason: "the TPM2 keyslot needs its PIN")
        }
        var rc: UInt32 = 0
        var why = [CChar](repeating: 0, count: 256)
        var length = 0
        var status: Int32 = 0
        let secret = SecretBytes(count: secretByteCount, protection: .guarded) { s in
            status = withAuth(auth) { a, n in
                conversation.withLock { _ in
                    vtpm_unseal(
                        device.tcti,
                        &sealed,
                        a,
                        n,
                        object.pcrMask,
                        s.bindMemory(to: UInt8.self).baseAddress,
                        s.count,
                        &length,
                        &rc,
                        &why,
                        why.count
                    )
                }
            }
        }
        do {
            try check(status, rc: rc, why: why, device: device, operation: "unseal")
        } catch {
            // Without PCRs in the binding, a policy failure is no PCR change: the binding's flags
            // are not its object's.
            guard error.code == .tpm2PolicyMismatch && object.pcrMask == 0 else { throw error }
            throw VaultIOError(
                .tpm2PolicyMismatch,
                operation: "unseal",
                reason: "the TPM refuses the authorization the binding states: its PIN flag does not match "
                    + "its sealed object, so the header was damaged or altered; open with the password and "
                    + "run 'vaulttool verify'"
            )
        }
        guard length == secretByteCount else {
            throw VaultIOError(
                .tpm2Refused,
                operation: "unseal",
                reason: "the TPM unsealed \(length) bytes where a TPM2 keyslot holds \(secretByteCount)"
            )
        }
        return secret
    }

    /// Whether this TPM can load `object` (it sealed it, and was not cleared since), checked
    /// before a PIN is asked for; loading costs no dictionary-attack failure.
    static func checkLoadable(_ object: TPM2SealedObject, device: TPM2Device) throws(VaultIOError) {
        var sealed = try cObject(object, operation: "load")
        var rc: UInt32 = 0
        var why = [CChar](repeating: 0, count: 256)
        let status = conversation.withLock { _ in vtpm_check_loadable(device.tcti, &sealed, &rc, &why, why.count) }
        try check(status, rc: rc, why: why, device: device, operation: "load")
    }

    /// `object` in the C layer's buffers, which hold blobs up to their capacity.
    private static func cObject(_ object: TPM2SealedObject, operation: String) throws(VaultIOError) -> vtpm_sealed {
        guard
            object.publicArea.count <= Int(VTPM_BLOB_CAPACITY), object.privateArea.count <= Int(VTPM_BLOB_CAPACITY)
        else {
            throw VaultIOError(.tpm2SealedElsewhere, operation: operation, reason: "the sealed object is too large")
        }
        var sealed = vtpm_sealed()
        copy(object.publicArea, into: &sealed.public_area)
        sealed.public_length = object.publicArea.count
        copy(object.privateArea, into: &sealed.private_area)
        sealed.private_length = object.privateArea.count
        return sealed
    }

    /// The TPM's dictionary-attack state: failures counted, failures allowed, seconds per failure.
    package static func lockoutState(device: TPM2Device) throws(VaultIOError) -> (
        failures: Int, maximum: Int, intervalSeconds: Int
    ) {
        var counter: UInt32 = 0
        var maximum: UInt32 = 0
        var interval: UInt32 = 0
        var rc: UInt32 = 0
        var why = [CChar](repeating: 0, count: 256)
        let status = conversation.withLock { _ in
            vtpm_lockout_state(device.tcti, &counter, &maximum, &interval, &rc, &why, why.count)
        }
        try check(status, rc: rc, why: why, device: device, operation: "read lockout state")
        return (Int(counter), Int(maximum), Int(interval))
    }

    // MARK: - Errors

    /// Maps a CVaultTPM status and TPM response code to the codes of L-TPM-3.
    private static func check(
        _ status: Int32,
        rc: UInt32,
        why: [CChar],
        device: TPM2Device,
        operation: String
    ) throws(VaultIOError) {
        let step = String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch Int(status) {
        case Int(VTPM_OK): return
        case Int(VTPM_LIBRARY_MISSING):
            throw VaultIOError(
                .tpm2Unavailable,
                operation: operation,
                reason: "the TPM2 libraries cannot be loaded (\(step)); install libtss2-esys-3.0.2-0, "
                    + "libtss2-tctildr0 and libtss2-mu0 (Debian: apt-get install libtss2-dev)"
            )
        case Int(VTPM_TCTI_FAILED):
            throw VaultIOError(
                .tpm2Unavailable,
                operation: operation,
                reason: "cannot reach the TPM through '\(device.tcti)' (\(hex(rc))): no TPM, no access to it "
                    + "(a user needs group 'tss' for /dev/tpmrm0), or the simulator is not running; "
                    + "set VAULT_TPM2_TCTI or --tpm2-tcti to name another"
            )
        case Int(VTPM_MALFORMED):
            throw VaultIOError(
                .tpm2SealedElsewhere,
                operation: operation,
                reason: "the sealed object is malformed (\(step)); open with another credential"
            )
        case Int(VTPM_INVALID):
            throw VaultIOError(.tpm2Refused, operation: operation, reason: "invalid argument (\(step))")
        default: break
        }
        throw refusal(rc, step: step, operation: operation)
    }

    /// The error for a TPM response code (TPM 2.0 Part 2, "TPM_RC"): format-one codes carry the
    /// parameter, session or handle number in bits 6 to 11, which do not change the meaning.
    static func refusal(_ rc: UInt32, step: String, operation: String) -> VaultIOError {
        let code = rc & 0xFFFF
        let base = code & 0x80 != 0 ? code & 0xBF : code
        let what = "TPM response \(hex(rc)) in \(step)"
        switch base {
        case 0x08E, 0x0A2:  // TPM_RC_AUTH_FAIL, TPM_RC_BAD_AUTH
            return VaultIOError(
                .tpm2WrongPIN,
                operation: operation,
                reason: "wrong TPM PIN; the TPM counts each wrong PIN and locks out after a few (\(what))"
            )
        case 0x921:  // TPM_RC_LOCKOUT
            return VaultIOError(
                .tpm2LockedOut,
                operation: operation,
                reason: "the TPM is locked out after too many wrong PINs: wait for its lockout interval, "
                    + "or open with the password (\(what))"
            )
        case 0x09D, 0x128:  // TPM_RC_POLICY_FAIL, TPM_RC_PCR_CHANGED
            return VaultIOError(
                .tpm2PolicyMismatch,
                operation: operation,
                reason: "the TPM refuses: a PCR the keyslot is bound to changed since it was sealed "
                    + "(a firmware, boot loader or Secure Boot change); open with the password and seal "
                    + "a new TPM2 keyslot (\(what))"
            )
        case 0x09F:  // TPM_RC_INTEGRITY
            return sealedElsewhere(what, operation: operation)
        case 0x12F:  // TPM_RC_AUTH_UNAVAILABLE
            return VaultIOError(
                .tpm2PolicyMismatch,
                operation: operation,
                reason: "the TPM refuses the authorization the binding states: its PCR or PIN fields do not "
                    + "match its sealed object, so the header was damaged or altered; open with the password "
                    + "and run 'vaulttool verify' (\(what))"
            )
        case 0x902:  // TPM_RC_OBJECT_MEMORY
            return VaultIOError(
                .tpm2Refused,
                operation: operation,
                reason: "the TPM has no room for another object: another program is using it without a "
                    + "resource manager; use the kernel's (device:/dev/tpmrm0) or tpm2-abrmd, or retry (\(what))"
            )
        default:
            if step == "Esys_Load" { return sealedElsewhere(what, operation: operation) }
            return VaultIOError(.tpm2Refused, operation: operation, reason: what)
        }
    }

    private static func sealedElsewhere(_ what: String, operation: String) -> VaultIOError {
        VaultIOError(
            .tpm2SealedElsewhere,
            operation: operation,
            reason: "this TPM cannot load the sealed object: it was sealed by another machine's TPM, or this "
                + "TPM was cleared; open with the password or recovery key and seal a new TPM2 keyslot (\(what))"
        )
    }

    // MARK: - Buffers

    private static func hex(_ rc: UInt32) -> String { "0x" + String(rc, radix: 16) }

    private static func withAuth<R>(
        _ auth: SecretBytes?,
        _ body: (UnsafePointer<UInt8>?, Int) -> R
    ) -> R {
        guard let auth else { return body(nil, 0) }
        return auth.withUnsafeBytes { body($0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
    }

    private static func bytes<T>(of tuple: inout T, count: Int) -> [UInt8] {
        withUnsafeBytes(of: &tuple) { Array($0.prefix(count)) }
    }

    private static func copy<T>(_ bytes: [UInt8], into tuple: inout T) {
        withUnsafeMutableBytes(of: &tuple) { $0.copyBytes(from: bytes) }
    }
}
