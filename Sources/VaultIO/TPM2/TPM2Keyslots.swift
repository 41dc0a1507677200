// vault: TPM2 keyslots: unsealing their key files for an open, sealing new ones in a write.

public import VaultFormat

/// Turns a ``Credentials/tpm2`` request into the key files of the file's TPM2 keyslots.
///
/// Spec: Spec/tpm2.md, R-TPM-4 and L-TPM-3.
enum TPM2Keyslots {
    /// `credentials` with the key files of the TPM2 keyslots of `header` that unseal, when they
    /// ask for the TPM.
    ///
    /// Bindings without a PIN are tried first: they cost no dictionary-attack strike, and a PIN
    /// that is missing or wrong does not hide them. Bindings with a PIN follow; the PIN is asked
    /// for once, only after the TPM loaded the object, and the first wrong PIN or lockout ends the search,
    /// so one open costs at most one strike (R-TPM-4).
    ///
    /// - Parameter bestEffort: For a rekey's candidates: every binding is tried (each TPM2
    ///   keyslot it unseals is rewrapped), and one that does not unseal leaves its keyslot
    ///   unopened instead of failing.
    /// - Throws: The refusal of the first binding tried (L-TPM-3) when the TPM is the only
    ///   credential and nothing unsealed; ``VaultIOError/Code/noTPM2Keyslot`` when the header
    ///   has no binding.
    static func unsealing(_ credentials: Credentials, header: VaultHeader, bestEffort: Bool = false) throws
        -> Credentials
    {
        guard let request = credentials.tpm2 else { return credentials }
        let lenient = bestEffort || credentials.offersMoreThanTPM2
        let bindings = header.tpm2Bindings
        guard !bindings.isEmpty else {
            if lenient { return credentials }
            throw VaultIOError(
                .noTPM2Keyslot,
                reason: "this vault has no TPM2 keyslot; open it with its password, then add one with "
                    + "'vaulttool passwd --add-tpm2'"
            )
        }
        let device = request.device ?? .default
        let memory = request.memory
        var credentials = credentials
        var firstFailure: (any Error)?
        let ordered = bindings.filter { !$0.sealed.requiresPIN } + bindings.filter(\.sealed.requiresPIN)
        for binding in ordered {
            if !bestEffort && !credentials.unsealedKeyFiles.isEmpty { break }
            if binding.sealed.requiresPIN && memory.pinRefused { continue }
            do {
                var pin: SecretBytes?
                if binding.sealed.requiresPIN {
                    pin =
                        try request.pin
                        ?? memory.pin {
                            guard let ask = request.askPIN else {
                                throw VaultIOError(.tpm2PINRequired, reason: "the TPM2 keyslot needs its PIN")
                            }
                            // A PIN typed for a TPM that is not there, or that cannot load the
                            // object (another machine's, a cleared TPM), is typed for nothing.
                            try TPM2Chip.checkLoadable(binding.sealed, device: device)
                            return try ask()
                        }
                }
                let secret = try TPM2Chip.unseal(binding.sealed, pin: pin, device: device)
                credentials.unsealedKeyFiles[binding.slotSalt] = KeyFileDigest(contents: secret)
            } catch {
                firstFailure = firstFailure ?? error
                let code = (error as? VaultIOError)?.code
                if let error = error as? VaultIOError { memory.record(error) }
                if code == .tpm2Unavailable { break }
                // Every wrong PIN counts against the TPM's lockout: one try per command, however
                // many bindings and opens it makes. A PIN that cannot be had is not asked again.
                if binding.sealed.requiresPIN && (code.map(Self.endsPINTries.contains) ?? true) {
                    memory.pinRefused = true
                }
            }
        }
        if credentials.unsealedKeyFiles.isEmpty, let firstFailure, !lenient { throw firstFailure }
        return credentials
    }
}

extension TPM2Keyslots {
    /// The refusals after which no other binding with a PIN is tried.
    static let endsPINTries: Set<VaultIOError.Code> = [.tpm2WrongPIN, .tpm2LockedOut, .tpm2PINRequired]
}

extension VaultTransaction {
    /// Adds a TPM2 keyslot: a key-file keyslot whose key file, 32 random bytes, only this machine's
    /// TPM can unseal, and the binding that holds the sealed object (Spec/tpm2.md, R-TPM-3).
    ///
    /// Adding never removes another way in; a removal in the same transaction that would leave
    /// only TPM2 keyslots is refused unless `allowTPM2Only` (L-TPM-2): a TPM is cleared, fails
    /// or goes with its machine.
    ///
    /// ```swift
    /// try vault.write { txn in try txn.addTPM2Keyslot(pcrs: [7]) }
    /// let server = try Vault(path: path, credentials: .tpm2())
    /// ```
    ///
    /// - Parameters:
    ///   - pcrs: SHA-256 PCRs (0 to 23) to bind to, at their current values.
    ///   - pin: A PIN the TPM checks (and counts failures of); `nil` for none.
    ///   - device: The TPM; ``TPM2Device/default`` when `nil`.
    ///   - allowTPM2Only: Sets ``allowsTPM2Only`` for this transaction (L-TPM-2).
    /// - Returns: The new keyslot's position in ``keyslots``.
    /// - Throws: `invalidParameter` for a PCR out of range, an empty PIN, or 32 keyslots or
    ///   bindings already; ``VaultIOError/Code/locked`` without the master key; a TPM error of
    ///   L-TPM-3.
    @discardableResult
    public mutating func addTPM2Keyslot(
        pcrs: [Int] = [],
        pin: SecretBytes? = nil,
        device: TPM2Device? = nil,
        allowTPM2Only: Bool = false
    ) throws -> Int {
        try requireMasterKey("add a TPM2 keyslot")
        let mask = try TPM2SealedObject.pcrMask(pcrs)
        if let pin, pin.count == 0 { throw VaultFormatError(.invalidParameter, "an empty PIN is no PIN") }
        guard writer.header.writtenBindingCount < TPM2Binding.maximumCount else {
            throw VaultFormatError(
                .invalidParameter,
                "a vault holds at most \(TPM2Binding.maximumCount) TPM2 bindings, and this one has them"
            )
        }
        if allowTPM2Only { allowsTPM2Only = true }
        let keyFile = SecretBytes.random(count: TPM2Chip.secretByteCount)
        let sealed = try TPM2Chip.seal(keyFile, pin: pin, pcrMask: mask, device: device ?? .default)
        try addKeyslot(.keyFile, credentials: Credentials(keyFile: keyFile))
        let slot = keyslots[keyslots.count - 1]
        writer.setUnknownFields(writer.header.unknownFields + [TPM2Binding(slotSalt: slot.salt, sealed: sealed).field])
        return keyslots.count - 1
    }

    /// The positions in ``keyslots`` of the TPM2 keyslots: key-file keyslots a binding names.
    public var tpm2Keyslots: [Int] {
        let isTPM2 = writer.header.isTPM2Keyslot
        return keyslots.indices.filter { isTPM2(keyslots[$0]) }
    }

    /// L-TPM-2: refuses `slots` (by default the keyslots this transaction would write) when
    /// they leave only TPM2 keyslots to open a vault that had another way in when the
    /// transaction started, whatever removed it (a removal, a rekey that dropped keyslots, a
    /// removed recipient), unless ``allowsTPM2Only``. A vault that was already opened by TPM2
    /// keyslots alone stays writable.
    func checkTPM2IsNotTheOnlyWayIn(_ slots: [Keyslot]? = nil) throws {
        let slots = slots ?? keyslots
        let header = writer.header
        guard !allowsTPM2Only, slots.contains(where: header.isTPM2Keyslot), !header.hasWayInBesidesTPM2(slots)
        else { return }
        if headerAtStart.hasWayInBesidesTPM2(headerAtStart.keyslots) { throw Self.tpm2OnlyRefusal }
    }

    static var tpm2OnlyRefusal: VaultFormatError {
        VaultFormatError(
            .invalidParameter,
            "the TPM would be the only way into the vault, and a TPM can be cleared or fail: keep a "
                + "password or recovery keyslot (add one first: 'vaulttool passwd --add-recovery'), or "
                + "allow it explicitly with 'vaulttool passwd --tpm2-only'"
        )
    }
}
