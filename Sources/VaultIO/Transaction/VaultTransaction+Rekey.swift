// vault: rekeying inside a write: a new master key, every record sealed again, keyslots rewrapped.

public import VaultFormat

/// What ``VaultTransaction/rekey(_:)`` may do with what it cannot carry over.
///
/// Spec: Spec/library-semantics.md, "Rekey" (L-KS-5).
public struct RekeyOptions: Sendable {
    /// What to do with something the rekey cannot carry over.
    public enum Handling: Sendable {
        /// Fail, changing nothing.
        case refuse
        /// Leave it out of the new generation.
        case drop
    }

    /// Credentials that open the keyslots to keep. A keyslot survives the rekey only when one
    /// of these opens it, when it is a device keyslot that the device secret held opens, or
    /// when it was made or rewrapped earlier in the same transaction.
    public var credentials: [Credentials]
    /// Keyslots that none of the credentials opens (their KEK cannot be derived, so they cannot
    /// wrap the new master key): refused by default, or removed.
    public var unopenedKeyslots: Handling
    /// `…ThisDeviceOnly` items that cannot be sealed again here (another device's, or every
    /// device-bound item when no device secret is held): refused by default, or deleted.
    public var foreignItems: Handling

    /// Creates rekey options.
    public init(credentials: [Credentials] = [], unopenedKeyslots: Handling = .refuse, foreignItems: Handling = .refuse)
    {
        self.credentials = credentials
        self.unopenedKeyslots = unopenedKeyslots
        self.foreignItems = foreignItems
    }
}

/// What ``VaultTransaction/rekey(_:)`` did.
public struct RekeyReport: Sendable {
    /// How many records were sealed again under the new master key.
    public let resealed: Int
    /// The positions (before the rekey) of the keyslots rewrapped and kept, ascending.
    public let keptKeyslots: [Int]
    /// The positions (before the rekey) of the keyslots removed because no credential opened them.
    public let droppedKeyslots: [Int]
    /// The foreign `…ThisDeviceOnly` items deleted (each leaves a deletion record).
    public let droppedItems: [ItemID]
}

extension VaultTransaction {
    /// Replaces the vault's master key, so that credentials removed before (and old copies of
    /// the file opened with them) do not open what is written from now on.
    ///
    /// In this transaction: a new random master key is drawn; every record is decrypted and
    /// sealed again under the new class keys with a fresh nonce (its ID, classes, attributes
    /// and secret stay); every keyslot that is kept is rewrapped around the new key with its
    /// own key-encryption key and a fresh nonce. The vault ID stays. It all commits in the one
    /// atomic write of ``Vault/write(_:)-8yjd9``, or not at all.
    ///
    /// **Keyslots.** A keyslot stores the master (or base) key sealed under a key derived from
    /// its credential and nothing else, so only its credential can rewrap it. A slot is kept
    /// when one of `options.credentials` opens it, when it is a device slot that the held
    /// device secret opens, or when this transaction made or rewrapped it. Any other slot is refused
    /// (the default) or removed (``RekeyOptions/Handling/drop``). At least one master-scope
    /// slot must remain.
    ///
    /// **Device-bound items.** This device's `…ThisDeviceOnly` items are sealed again. Another
    /// device's cannot be (their class keys need that device's secret), and after the rekey no
    /// one could ever read them, since their keys derive from the old master key: they are
    /// refused (the default) or deleted, each with a deletion record.
    ///
    /// The ``Vault`` that runs the write adopts the new keys. Other `Vault` instances holding
    /// the old keys get ``VaultIOError/Code/credentialsRequired`` and must open the vault again.
    ///
    /// ```swift
    /// try vault.write { txn in
    ///     try txn.rekey(RekeyOptions(credentials: [.password(passphrase), .password(recovery)]))
    /// }
    /// ```
    ///
    /// - Parameter options: The credentials of the keyslots to keep, and what to do with
    ///   what cannot be carried over.
    /// - Returns: What was resealed, kept and dropped.
    /// - Throws: ``VaultIOError/Code/locked`` without the master key; ``VaultIOError/Code/rekeyRefused``
    ///   when a keyslot cannot be rewrapped or a foreign item cannot be resealed and the options
    ///   say `refuse` (the reason lists the slots by position and kind and counts the items);
    ///   ``VaultFormatError`` `invalidParameter` when no master-scope keyslot would remain,
    ///   `recordCorrupt` for a damaged record, `kdfRejected` or `cryptoFailure` from a password slot's KDF.
    ///
    /// Spec: Spec/format-v1.md (R-KS-5, R-KS-10); Spec/library-semantics.md (L-KS-5).
    @discardableResult
    public mutating func rekey(_ options: RekeyOptions = RekeyOptions()) throws -> RekeyReport {
        try requireMasterKey("rekey")
        let vaultID = writer.header.vaultID
        let master: MasterKey = SystemRandom().key()
        let newKeys = KeyHierarchy.keys(master: master, deviceSecret: writer.keys.deviceSecret, vaultID: vaultID)
        let newBase = KeyHierarchy.baseKey(from: master)

        // A TPM2 keyslot is rewrapped when the TPM unseals it (L-TPM-4); otherwise it is unopened.
        var candidates = try options.credentials.map {
            try TPM2Keyslots.unsealing($0, header: writer.header, bestEffort: true)
        }
        if let held = writer.keys.deviceSecret { candidates.append(Credentials(deviceSecret: held)) }
        let previous = keyslots
        var slots = [Keyslot]()
        var keks = [KeyEncryptionKey]()
        var kept = [Int]()
        var unopened = [Int]()
        for (position, slot) in previous.enumerated() {
            var kek = newSlotKEKs[slot]
            if kek == nil { kek = try keyEncryptionKey(opening: slot, from: candidates) }
            guard let kek else {
                unopened.append(position)
                continue
            }
            let key = slot.scope == .masterKey ? master.secret : newBase.secret
            slots.append(KeyHierarchy.rewrap(slot, key: key, using: kek, vaultID: vaultID))
            keks.append(kek)
            kept.append(position)
        }

        if !unopened.isEmpty && options.unopenedKeyslots == .refuse {
            let isTPM2 = writer.header.isTPM2Keyslot
            let kind = { (slot: Keyslot) in isTPM2(slot) ? "tpm2" : "\(slot.kind)" }
            var reason =
                "keyslot\(unopened.count == 1 ? "" : "s") "
                + unopened.map { "#\($0) (\(kind(previous[$0])))" }.joined(separator: ", ")
                + " cannot be rewrapped: no credential given opens \(unopened.count == 1 ? "it" : "them")"
            if unopened.contains(where: { kind(previous[$0]) == "tpm2" }) {
                let refusal = options.credentials.lazy.compactMap { $0.tpm2?.memory.refusal as? VaultIOError }.first
                reason +=
                    refusal.map { " (the TPM: \($0.reason))" }
                    ?? " (a TPM2 keyslot needs this machine's TPM, and --tpm2 for one with a PIN)"
            }
            if options.foreignItems == .refuse {
                let foreign = try writer.foreignItems().count
                if foreign > 0 { reason += "; " + Self.foreignReason(foreign) }
            }
            throw VaultIOError(.rekeyRefused, operation: "rekey", reason: reason)
        }
        guard slots.contains(where: { $0.scope == .masterKey }) else {
            throw VaultFormatError(
                .invalidParameter,
                "no keyslot that opens the master key would remain; give the credential of one"
            )
        }

        let result = try resealRecords(under: newKeys, keyslots: slots, dropForeign: options.foreignItems == .drop)
        hasChanges = true
        keyslotsChanged = true
        rekeyed = true
        // Kept for this transaction only, so that a later rekey in it needs no KDF.
        newSlotKEKs = Dictionary(zip(slots, keks), uniquingKeysWith: { first, _ in first })
        try removePasscodeItemsWithoutPassword()
        return RekeyReport(
            resealed: result.resealed,
            keptKeyslots: kept,
            droppedKeyslots: unopened,
            droppedItems: result.droppedForeign
        )
    }

    /// Runs the writer's rekey, turning its refusal of foreign items into ``VaultIOError/Code/rekeyRefused``.
    private mutating func resealRecords(under newKeys: VaultKeys, keyslots: [Keyslot], dropForeign: Bool) throws
        -> VaultWriter.RekeyResult
    {
        do {
            return try writer.rekey(to: newKeys, keyslots: keyslots, droppingForeign: dropForeign, now: now)
        } catch let error as VaultFormatError {
            guard error.code == .foreignDevice else { throw error }
            let count = try writer.foreignItems().count
            throw VaultIOError(.rekeyRefused, operation: "rekey", reason: Self.foreignReason(count))
        }
    }

    private static func foreignReason(_ count: Int) -> String {
        "\(count) ThisDeviceOnly item\(count == 1 ? "" : "s") cannot be sealed again here "
            + "(another device's, or no device secret given) and would be lost"
    }

    /// The KEK of `slot` from the first of `candidates` that opens it.
    private func keyEncryptionKey(opening slot: Keyslot, from candidates: [Credentials]) throws -> KeyEncryptionKey? {
        for credentials in candidates {
            if let kek = try KeyHierarchy.keyEncryptionKey(
                opening: slot,
                with: credentials,
                vaultID: writer.header.vaultID,
                normalizingPassword: writer.header.followsVersion11Rules
            ) {
                return kek
            }
        }
        return nil
    }
}
