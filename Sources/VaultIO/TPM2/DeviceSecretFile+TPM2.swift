// vault: a device secret that only this machine's TPM can unseal.

public import VaultFormat

extension DeviceSecretFile {
    /// The first bytes of a TPM-sealed device-secret file.
    static let sealedMagic = Array("VLTtpmDS".utf8)
    /// The largest TPM-sealed device-secret file: magic, format, and a sealed object of two full blobs.
    static let sealedMaximumByteCount = 8 + 1 + 13 + 2 * TPM2SealedObject.maximumBlobByteCount

    /// Creates a new device secret sealed by this machine's TPM: copying the file (or the whole
    /// home directory) to another machine no longer copies the device.
    ///
    /// The secret is 32 random bytes, as for ``createNew(at:)``; the file holds only the TPM's
    /// sealed object, mode `0600`, and is never written over an existing file.
    ///
    /// - Parameters:
    ///   - path: The device-secret file, such as ``defaultPath``.
    ///   - device: The TPM.
    ///   - pcrs: SHA-256 PCRs to bind the secret to, at their current values.
    /// - Throws: ``VaultIOError/Code/alreadyExists`` when a file is at `path`; a TPM error of
    ///   Spec/tpm2.md L-TPM-3; a ``VaultIOError`` naming the step that failed.
    ///
    /// Spec: Spec/tpm2.md, L-TPM-6.
    public static func createNew(at path: String, sealedBy device: TPM2Device, pcrs: [Int] = []) throws {
        let mask = try TPM2SealedObject.pcrMask(pcrs)
        let secret = SecretBytes.random(count: DeviceSecret.byteCount)
        let sealed = try TPM2Chip.seal(secret, pin: nil, pcrMask: mask, device: device)
        try OwnerOnlyFile.create(
            at: path,
            sealedMagic + [1] + sealed.encoded,
            operation: "create device secret",
            reason: "a device secret is already there"
        )
    }

    /// The device secret in `bytes`, read from `path`: 32 bytes as they are, or a TPM-sealed
    /// secret unsealed by `device` (L-TPM-7).
    static func secret(from bytes: [UInt8], path: String, device: TPM2Device?) throws -> DeviceSecret {
        // A sealed file cut to 32 bytes would otherwise pass as a secret of public bytes.
        if bytes.count == DeviceSecret.byteCount && !bytes.starts(with: sealedMagic) {
            return DeviceSecret(secret: SecretBytes(bytes: bytes))
        }
        guard bytes.starts(with: sealedMagic) else {
            throw VaultIOError(
                .invalidDeviceSecret,
                operation: "read",
                path: path,
                reason: "a device secret is exactly \(DeviceSecret.byteCount) bytes"
            )
        }
        guard bytes.count > sealedMagic.count, bytes[sealedMagic.count] == 1,
            let sealed = TPM2SealedObject.decode(bytes[(sealedMagic.count + 1)...]), !sealed.requiresPIN
        else {
            throw VaultIOError(
                .invalidDeviceSecret,
                operation: "read",
                path: path,
                reason: "the TPM-sealed device secret is malformed"
            )
        }
        let secret: SecretBytes
        do {
            secret = try TPM2Chip.unseal(sealed, pin: nil, device: device ?? .default)
        } catch {
            throw deviceSecretRefusal(error, path: path)
        }
        return DeviceSecret(secret: secret)
    }

    /// The TPM's refusal, said of a device secret rather than of a keyslot: there is no other
    /// credential to fall back on, and the items it binds are this machine's.
    private static func deviceSecretRefusal(_ error: VaultIOError, path: String) -> VaultIOError {
        let detail = error.reason.lastIndex(of: "(").map { " " + error.reason[$0...] } ?? ""
        let reason: String
        switch error.code {
        case .tpm2SealedElsewhere:
            reason =
                "this TPM cannot unseal the device secret: it was sealed by another machine's TPM, or this "
                + "TPM was cleared; the ThisDeviceOnly items sealed with it are lost with it, as with a "
                + "deleted device-secret file" + detail
        case .tpm2PolicyMismatch:
            reason =
                "the TPM refuses the device secret: a PCR it is bound to changed since it was sealed (a "
                + "firmware, boot loader or Secure Boot change); boot the state it was sealed in to read "
                + "this machine's ThisDeviceOnly items" + detail
        default: return error
        }
        return VaultIOError(error.code, operation: "read device secret", path: path, reason: reason)
    }
}
