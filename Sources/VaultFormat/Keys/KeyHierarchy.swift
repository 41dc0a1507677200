// vault: the key hierarchy: keyslot KEKs, subkeys and class keys.

/// The unlocked keys of one vault.
///
/// Holds the base key and the keys derived from it, the master key when a
/// master-scope keyslot opened, and the per-class record keys that are
/// available. ``dropping(_:)`` returns a copy without some class keys, which is
/// how a library locks `whenUnlocked` items.
///
/// Spec: Spec/format-v1.md, "Key hierarchy".
public final class VaultKeys: Sendable {
    /// The master key, when a master-scope keyslot opened. Package-visible only:
    /// embedders reach items through snapshots and transactions, never raw keys.
    package let master: MasterKey?
    /// The base key (package-visible only, like ``master``); `nil` for a limited recipient
    /// (format 2.0), which holds only the header, index and lookup keys and one group's keys.
    package let base: BaseKey?
    /// The key domain a limited recipient stanza opened (format 2.0), else `nil`: the records
    /// of that domain (``IndexEntry/domain``) are the limited recipient's own access group.
    public let limitedDomain: UInt8?
    let headerKey: KeyRef
    let indexKey: KeyRef
    let lookupKey: KeyRef
    /// The device secret used, if any.
    public let deviceSecret: DeviceSecret?

    /// Whether a master-scope keyslot or a full recipient stanza opened: who holds the master key
    /// can read the recipients and change keyslots. The key itself is never public.
    public var holdsMasterKey: Bool { master != nil }

    /// The same unlocked keys with `deviceSecret` added, for the `…ThisDeviceOnly` classes (keys
    /// from the vault agent, which was unlocked without one). A limited recipient's keys come
    /// back unchanged: they hold no base key to derive the device-bound keys from.
    public func adding(deviceSecret: DeviceSecret, vaultID: [UInt8]) -> VaultKeys {
        KeyHierarchy.keys(from: self, deviceSecret: deviceSecret, vaultID: vaultID)
    }
    /// Keys the per-record device markers (R-REC-2), when a device secret was given.
    let deviceMarkerKey: KeyRef?
    let classKeys: [ProtectionClass: RecordKeys]
    /// Record keys of the access groups' key domains (format 2.0), by domain.
    let groupClassKeys: [UInt8: [ProtectionClass: RecordKeys]]
    /// The names of the access groups whose keys were derived from the master key, by domain
    /// (format 2.0); empty for a limited recipient, which receives its group key in its stanza.
    package let groupNames: [UInt8: String]
    /// The format-3 scope keys these keys reach, `SAK = Derive(parent, 8, "VLT3scop")`: the master
    /// scope's from `MK`, the base scope's from `BK`, a group's from its `GK(d)`
    /// (Spec/format-v3.md §7.1, design draft).
    let scopeKeys: [ScopeID: KeyRef]

    struct RecordKeys: Sendable {
        let attributes: KeyRef
        let secret: KeyRef
    }

    /// Derives every key that `master` (or only `base`) and `deviceSecret` allow, into
    /// one guarded allocation.
    ///
    /// - Parameter groups: The header's access groups, name by key domain (format 2.0); with
    ///   `master`, their record keys are derived too, from `GK(d, name)` (R2-KEY-1).
    init(
        master: MasterKey?,
        base: BaseKey,
        deviceSecret: DeviceSecret?,
        vaultID: [UInt8],
        groups: [UInt8: String] = [:]
    ) {
        self.master = master
        self.base = base
        limitedDomain = nil
        groupNames = master == nil ? [:] : groups
        let groupCount = groupNames.count
        let classCount = ProtectionClass.allCases.count
        var arena = KeyArenaBuilder(slots: 6 + groupCount + 2 * classCount * (1 + groupCount))
        headerKey = arena.derive(from: base.secret, id: 1, context: "VLTheadr")
        indexKey = arena.derive(from: base.secret, id: 2, context: "VLTindex")
        lookupKey = arena.derive(from: base.secret, id: 3, context: "VLTlookp")
        var scopes: [ScopeID: KeyRef] = [.base: arena.derive(from: base.secret, id: 8, context: "VLT3scop")]
        if let master { scopes[.master] = arena.derive(from: master.secret, id: 8, context: "VLT3scop") }
        self.deviceSecret = deviceSecret
        deviceMarkerKey = deviceSecret.map {
            arena.keyedHash(key: $0.secret, message: [Array("VLT1dvmk".utf8), vaultID])
        }
        var scratch = KeyArenaBuilder(slots: (2 * classCount + 2) * (1 + groupCount))
        var keys: [ProtectionClass: RecordKeys] = [:]
        for protection in ProtectionClass.allCases {
            let parent: SecretBytes
            if protection.derivesFromBaseKey {
                parent = base.secret
            } else if let master {
                parent = master.secret
            } else {
                continue
            }
            if protection.isDeviceBound && deviceSecret == nil { continue }
            var classKey = scratch.derive(from: parent, id: 16 + UInt64(protection.rawValue), context: "VLTclass")
            if protection.isDeviceBound, let deviceSecret {
                classKey = scratch.keyedHash(key: classKey, message: [Array("VLT1devc".utf8), deviceSecret.secret])
            }
            keys[protection] = RecordKeys(
                attributes: arena.derive(from: classKey, id: 1, context: "VLTattrs"),
                secret: arena.derive(from: classKey, id: 2, context: "VLTsecrt")
            )
        }
        classKeys = keys
        var groups: [UInt8: [ProtectionClass: RecordKeys]] = [:]
        if let master {
            for (domain, name) in groupNames {
                let domainKey = scratch.derive(from: master.secret, id: 256 + UInt64(domain), context: "VLTgroup")
                let groupKey = scratch.keyedHash(key: domainKey, message: KeyHierarchy.groupKeyMessage(name))
                scopes[.group(domain)] = arena.derive(from: groupKey, id: 8, context: "VLT3scop")
                groups[domain] = Self.groupRecordKeys(
                    groupKey: groupKey,
                    deviceSecret: deviceSecret,
                    arena: &arena,
                    scratch: &scratch
                )
            }
        }
        groupClassKeys = groups
        scopeKeys = scopes
    }

    /// The keys a limited recipient stanza yields (format 2.0, R2-RCP-3): the header, index and
    /// lookup keys, and the record keys of one key domain. No base key, no master key.
    init(limitedKeys: SecretBytes, domain: UInt8, deviceSecret: DeviceSecret?, vaultID: [UInt8]) {
        master = nil
        base = nil
        limitedDomain = domain
        groupNames = [:]
        self.deviceSecret = deviceSecret
        let classCount = ProtectionClass.allCases.count
        var arena = KeyArenaBuilder(slots: 5 + 2 * classCount)
        var scratch = KeyArenaBuilder(slots: 2 * classCount + 1)
        headerKey = arena.copy(KeyRef(arena: limitedKeys, offset: 0))
        indexKey = arena.copy(KeyRef(arena: limitedKeys, offset: 32))
        lookupKey = arena.copy(KeyRef(arena: limitedKeys, offset: 64))
        let groupKey = scratch.copy(KeyRef(arena: limitedKeys, offset: 96))
        scopeKeys = [.group(domain): arena.derive(from: groupKey, id: 8, context: "VLT3scop")]
        deviceMarkerKey = deviceSecret.map {
            arena.keyedHash(key: $0.secret, message: [Array("VLT1dvmk".utf8), vaultID])
        }
        classKeys = [:]
        groupClassKeys = [
            domain: Self.groupRecordKeys(
                groupKey: groupKey,
                deviceSecret: deviceSecret,
                arena: &arena,
                scratch: &scratch
            )
        ]
    }

    /// The record keys of one key domain: `CK'(c) = Derive(GK, 16 + c, "VLTgrpcl")` for every class,
    /// mixed with the device secret for the device-bound classes (R2-KEY-1).
    private static func groupRecordKeys(
        groupKey: KeyRef,
        deviceSecret: DeviceSecret?,
        arena: inout KeyArenaBuilder,
        scratch: inout KeyArenaBuilder
    ) -> [ProtectionClass: RecordKeys] {
        var keys: [ProtectionClass: RecordKeys] = [:]
        for protection in ProtectionClass.allCases {
            if protection.isDeviceBound && deviceSecret == nil { continue }
            var classKey = scratch.derive(from: groupKey, id: 16 + UInt64(protection.rawValue), context: "VLTgrpcl")
            if protection.isDeviceBound, let deviceSecret {
                classKey = scratch.keyedHash(key: classKey, message: [Array("VLT1devc".utf8), deviceSecret.secret])
            }
            keys[protection] = RecordKeys(
                attributes: arena.derive(from: classKey, id: 1, context: "VLTattrs"),
                secret: arena.derive(from: classKey, id: 2, context: "VLTsecrt")
            )
        }
        return keys
    }

    private init(copying other: VaultKeys, keeping classes: Set<ProtectionClass>, keepMaster: Bool) {
        master = keepMaster ? other.master : nil
        base = other.base
        limitedDomain = other.limitedDomain
        groupNames = other.groupNames
        deviceSecret = other.deviceSecret
        // A fresh arena, so that dropped class keys do not stay reachable through this copy.
        // Format 3: the scope keys stay, so that the classes kept are written as before (a locked
        // vault still writes afterFirstUnlock items, whose scope's tag needs SAK(0)); they decrypt
        // nothing (Spec/format-v3.md §7.1).
        let scopes = other.scopeKeys
        var arena = KeyArenaBuilder(slots: 4 + scopes.count + 2 * classes.count * (1 + other.groupClassKeys.count))
        headerKey = arena.copy(other.headerKey)
        indexKey = arena.copy(other.indexKey)
        lookupKey = arena.copy(other.lookupKey)
        scopeKeys = scopes.mapValues { arena.copy($0) }
        deviceMarkerKey = other.deviceMarkerKey.map { arena.copy($0) }
        var keys: [ProtectionClass: RecordKeys] = [:]
        for (protection, pair) in other.classKeys where classes.contains(protection) {
            keys[protection] = RecordKeys(attributes: arena.copy(pair.attributes), secret: arena.copy(pair.secret))
        }
        classKeys = keys
        var groups: [UInt8: [ProtectionClass: RecordKeys]] = [:]
        for (domain, domainKeys) in other.groupClassKeys {
            var kept: [ProtectionClass: RecordKeys] = [:]
            for (protection, pair) in domainKeys where classes.contains(protection) {
                kept[protection] = RecordKeys(attributes: arena.copy(pair.attributes), secret: arena.copy(pair.secret))
            }
            groups[domain] = kept
        }
        groupClassKeys = groups
    }

    /// Whether a master-scope keyslot opened these keys (every class can be derived).
    public var hasMasterKey: Bool { master != nil }

    /// The protection classes whose records these keys can open.
    public var availableClasses: Set<ProtectionClass> {
        Set(classKeys.keys).union(groupClassKeys.values.flatMap(\.keys))
    }

    /// The key domains whose records these keys can open besides domain 0 (format 2.0).
    package var groupDomains: [UInt8] { groupClassKeys.keys.sorted() }

    /// A copy that can no longer open the given classes.
    public func dropping(_ classes: Set<ProtectionClass>) -> VaultKeys {
        VaultKeys(copying: self, keeping: availableClasses.subtracting(classes), keepMaster: true)
    }

    /// A copy without the master key and without the given classes: what a locked
    /// vault keeps. Without the master key no dropped class key can be derived again;
    /// the base key, the remaining class keys and (format 3) the scope keys still read and write
    /// those classes.
    public func locked(dropping classes: Set<ProtectionClass>) -> VaultKeys {
        VaultKeys(copying: self, keeping: availableClasses.subtracting(classes), keepMaster: false)
    }

    func recordKeys(for protection: ProtectionClass, domain: UInt8 = 0) throws(VaultFormatError) -> RecordKeys {
        let available = domain == 0 ? classKeys[protection] : groupClassKeys[domain]?[protection]
        guard let keys = available else {
            if protection.isDeviceBound && deviceSecret == nil {
                throw VaultFormatError(.foreignDevice, "items of class \(protection) need this device's secret")
            }
            throw VaultFormatError(.keyUnavailable, "the key for class \(protection) is not available")
        }
        return keys
    }

    /// The 16-byte device marker of a device-bound record with `nonce`:
    /// `BLAKE2b(16, DMK, "VLT1mark" || nonce)`, or `nil` without a device secret.
    ///
    /// Spec: Spec/format-v1.md, "Records" (R-REC-2).
    func deviceMarker(nonce: some ReadableBytes) -> [UInt8]? {
        deviceMarkerKey.map { BLAKE2b.hash([Array("VLT1mark".utf8), nonce], key: $0, length: 16) }
    }

    /// The device tag of an item ID's first 8 bytes: `BLAKE2b(8, DMK, "VLT1dvid" || id[0:8])`,
    /// or `nil` without a device secret.
    ///
    /// Spec: Spec/format-v1.1.md, "Device-tagged item IDs" (R11-DEV-1).
    private func deviceIDTag(_ prefix: ArraySlice<UInt8>) -> [UInt8]? {
        deviceMarkerKey.map { BLAKE2b.hash([Array("VLT1dvid".utf8), Array(prefix)], key: $0, length: 8) }
    }

    /// Whether `id` carries this device's tag in its last 8 bytes, so that the item is
    /// this device's by the authenticated index (R11-DEV-2). `false` without a device secret.
    public func isOwnDeviceItem(_ id: ItemID) -> Bool {
        let bytes = id.bytes
        guard let tag = deviceIDTag(bytes[0..<8]) else { return false }
        return Sodium.constantTimeEqual(tag, bytes[8..<16])
    }

    /// `id` with its last 8 bytes replaced by this device's tag (R11-DEV-1), or `nil`
    /// without a device secret.
    public func deviceTaggedID(from id: ItemID) -> ItemID? {
        let bytes = id.bytes
        return deviceIDTag(bytes[0..<8]).map { ItemID(bytes: bytes[0..<8] + $0) }
    }

    /// Computes the lookup tag of a primary key (big-endian so that numeric order is byte order).
    ///
    /// Spec: Spec/format-v1.md, "Lookup tag".
    public func lookupTag(_ key: PrimaryKey) -> UInt64 {
        withUnsafeTemporaryAllocation(byteCount: 8, alignment: 8) { tag in
            BLAKE2b.hash(key.bytes, key: lookupKey, into: tag)
            return tag.reduce(0) { $0 << 8 | UInt64($1) }
        }
    }
}

/// Key-encryption keys and keyslot wrapping.
package enum KeyHierarchy {
    /// `BK = Derive(MK, 1, "VLTbase_")`.
    public static func baseKey(from master: MasterKey) -> BaseKey {
        BaseKey(secret: BLAKE2b.deriveKey(from: master.secret, id: 1, context: "VLTbase_"))
    }

    /// Derives the key-encryption key of `slot` from `credentials`, or `nil` when
    /// the credentials cannot open this kind of slot.
    ///
    /// - Throws: `kdfRejected` before Argon2 runs when the parameters break R-KS-2.
    static func keyEncryptionKey(for slot: Keyslot, credentials: Credentials, normalizingPassword: Bool)
        throws(VaultFormatError) -> KeyEncryptionKey?
    {
        // Format 1.1 derives every password KEK from the NFC form (R11-PW-1).
        let password = credentials.password.map { normalizingPassword ? PasswordNormalization.nfc($0) : $0 }
        switch slot.kind {
        case .password:
            guard let password, let kdf = slot.kdf else { return nil }
            try kdf.validateForReading()
            return KeyEncryptionKey(
                secret: try Argon2id.deriveKey(password: password, salt: slot.salt, parameters: kdf)
            )
        case .keyFile:
            // A TPM-unsealed key file opens only the keyslot its binding names (R-TPM-4).
            guard let keyFile = credentials.unsealedKeyFiles[slot.salt] ?? credentials.resolvedKeyFile else {
                return nil
            }
            return KeyEncryptionKey(
                secret: BLAKE2b.keyedKey(
                    key: SecretBytes(bytes: slot.salt),
                    message: [Array("VLT1keyf".utf8), keyFile.digest]
                )
            )
        case .passwordAndKeyFile:
            guard let password, let keyFile = credentials.resolvedKeyFile, let kdf = slot.kdf else {
                return nil
            }
            try kdf.validateForReading()
            let stretched = try Argon2id.deriveKey(password: password, salt: slot.salt, parameters: kdf)
            return KeyEncryptionKey(
                secret: BLAKE2b.keyedKey(key: stretched, message: [Array("VLT1pwkf".utf8), keyFile.digest])
            )
        case .device:
            guard let device = credentials.deviceSecret else { return nil }
            return KeyEncryptionKey(
                secret: BLAKE2b.keyedKey(key: device.secret, message: [Array("VLT1devk".utf8), slot.salt])
            )
        }
    }

    static func slotAssociatedData(_ slot: Keyslot, vaultID: [UInt8]) -> [UInt8] {
        Array("VLT1slot".utf8) + vaultID + slot.parameterBytes
    }

    /// The key `slot` wraps (the master or base key) when `kek` opens it, else `nil`: the one
    /// unwrap of a keyslot, for unlocking and for checking a credential (format section 5).
    static func unwrap(_ slot: Keyslot, with kek: KeyEncryptionKey, vaultID: [UInt8]) -> SecretBytes? {
        XChaCha20Poly1305.openKey(
            slot.wrapped,
            using: kek,
            nonce: slot.nonce,
            authenticating: slotAssociatedData(slot, vaultID: vaultID),
            protection: .guarded
        )
    }

    /// Builds a keyslot that wraps `key` (the master or base key) for `credentials`.
    ///
    /// - Parameters:
    ///   - kind: The credential kind; `credentials` must hold what it needs.
    ///   - kdf: Argon2id parameters for password kinds. Checked with
    ///     ``KDFParameters/validateForWriting()`` unless `allowWeak` (tests only).
    ///   - allowShortKeyFile: Skips the 32-byte key-file minimum (R-KF-1); only for tests and
    ///     fixtures that must reproduce what older writers made.
    ///   - normalizesPassword: Whether the file the slot goes into follows the 1.1 password rule
    ///     (``VaultHeader/followsVersion11Rules``: formats 1.1, 1.2 and 2.0): then the password
    ///     is normalized to NFC first (R11-PW-1), as every reader of such a file does.
    /// - Throws: `invalidParameter` when a needed credential is missing or a key file is shorter
    ///   than ``KeyFileDigest/minimumByteCount`` (R-KF-1); `kdfRejected` for weak parameters.
    public static func makeKeyslot(
        kind: Keyslot.Kind,
        wrapping key: SecretBytes,
        scope: Keyslot.Scope,
        credentials: Credentials,
        kdf: KDFParameters = .default,
        vaultID: [UInt8],
        random: some RandomSource = SystemRandom(),
        allowWeak: Bool = false,
        allowShortKeyFile: Bool = false,
        normalizesPassword: Bool = true
    ) throws(VaultFormatError) -> Keyslot {
        try makeKeyslotKeepingKEK(
            kind: kind,
            wrapping: key,
            scope: scope,
            credentials: credentials,
            kdf: kdf,
            vaultID: vaultID,
            random: random,
            allowWeak: allowWeak,
            allowShortKeyFile: allowShortKeyFile,
            normalizesPassword: normalizesPassword
        ).slot
    }

    /// Builds a keyslot as ``makeKeyslot(kind:wrapping:scope:credentials:kdf:vaultID:random:allowWeak:)``
    /// does, and also returns its key-encryption key, so that a rekey in the same write can
    /// rewrap the new slot without deriving the KEK again.
    package static func makeKeyslotKeepingKEK(
        kind: Keyslot.Kind,
        wrapping key: SecretBytes,
        scope: Keyslot.Scope,
        credentials: Credentials,
        kdf: KDFParameters = .default,
        vaultID: [UInt8],
        random: some RandomSource = SystemRandom(),
        allowWeak: Bool = false,
        allowShortKeyFile: Bool = false,
        normalizesPassword: Bool
    ) throws(VaultFormatError) -> (slot: Keyslot, kek: KeyEncryptionKey) {
        // A key-file slot has no work factor: its key file must carry a key's worth of bytes (R-KF-1).
        if kind.usesKeyFile, !allowShortKeyFile, let keyFile = credentials.resolvedKeyFile,
            !keyFile.isLongEnoughForWriting
        {
            throw VaultFormatError(
                .invalidParameter,
                "a key-file keyslot is only written for a key file of at least \(KeyFileDigest.minimumByteCount) "
                    + "bytes (R-KF-1); this one has \(keyFile.byteCount): use a new 32-byte random key file"
            )
        }
        var slot = Keyslot(
            kind: kind,
            scope: scope,
            kdf: nil,
            salt: random.bytes(32),
            nonce: random.bytes(24),
            wrapped: []
        )
        if kind.usesPassword {
            if allowWeak { try kdf.validateForReading() } else { try kdf.validateForWriting() }
            slot.kdf = kdf
        }
        guard
            let kek = try keyEncryptionKey(for: slot, credentials: credentials, normalizingPassword: normalizesPassword)
        else {
            throw VaultFormatError(.invalidParameter, "a \(kind) keyslot needs that credential")
        }
        slot.wrapped = XChaCha20Poly1305.seal(
            key,
            using: kek,
            nonce: slot.nonce,
            authenticating: slotAssociatedData(slot, vaultID: vaultID)
        )
        return (slot, kek)
    }

    /// The slot index ``unlock(_:with:)`` reports when a recipient stanza opened the vault.
    public static let openedByRecipient = -1

    /// Opens the first keyslot that `credentials` unlock, trying every slot (R-KS-3), after the
    /// recipient stanzas when an identity is offered (format 1.2, R12-RCP-3).
    ///
    /// - Returns: The index of the slot that opened (``openedByRecipient`` for a recipient stanza),
    ///   and the keys.
    /// - Throws: `kdfRejected` when a password slot's parameters break R-KS-2;
    ///   `wrongCredential` when no slot opens.
    public static func unlock(_ header: VaultHeader, with credentials: Credentials) throws(VaultFormatError)
        -> (slot: Int, keys: VaultKeys)
    {
        let opened = try unlockKeepingKEK(header, with: credentials)
        return (opened.slot, opened.keys)
    }

    /// Opens the vault as ``unlock(_:with:)`` does, and also returns the key-encryption key of
    /// the keyslot that opened (`nil` when a recipient stanza opened it). A write that changes
    /// keyslots (a removal with a rekey rewraps every kept slot) can then rewrap that slot
    /// without running its key derivation a second time.
    package static func unlockKeepingKEK(_ header: VaultHeader, with credentials: Credentials)
        throws(VaultFormatError) -> (slot: Int, keys: VaultKeys, kek: KeyEncryptionKey?)
    {
        // Check every password slot's cost before running any Argon2 (R-KS-2).
        for slot in header.keyslots where slot.kind.usesPassword { try slot.kdf?.validateForReading() }
        // ...and their sum, so that 32 slots at the ceiling cannot cost 32 times as much (R-KS-8).
        try KDFParameters.validateTotal(of: header.keyslots)
        // Format 1.2: an identity tries every recipient stanza first; they wrap the master key
        // and cost one X25519 each (R12-RCP-3, R-KS-7).
        var mismatched = false
        if let identity = credentials.identity, header.followsVersion12Rules {
            for stanza in header.recipientStanzas {
                if stanza.isLimited {
                    // Format 2.0: a limited stanza yields one access group's keys only (R2-RCP-3).
                    guard
                        let limited = openLimitedRecipientStanza(stanza, identity: identity, vaultID: header.vaultID)
                    else { continue }
                    let keys = VaultKeys(
                        limitedKeys: limited,
                        domain: stanza.domain,
                        deviceSecret: credentials.deviceSecret,
                        vaultID: header.vaultID
                    )
                    return (openedByRecipient, keys, nil)
                }
                guard let master = openRecipientStanza(stanza, identity: identity, vaultID: header.vaultID) else {
                    continue
                }
                // R12-RCP-7: the opener of a stanza can tell whether its info names the key that
                // opened it. One that names another key hides its holder behind that name (and a
                // rekey would hand it to the named key): damage, not a way in.
                // (An info that does not read is R12-RCP-4's damage, reported where it is read.)
                if let named = try? recipient(of: stanza, master: master, vaultID: header.vaultID).key,
                    named != identity.recipient
                {
                    mismatched = true
                    continue
                }
                let keys = VaultKeys(
                    master: master,
                    base: baseKey(from: master),
                    deviceSecret: credentials.deviceSecret,
                    vaultID: header.vaultID,
                    groups: optionalAccessGroupNames(of: header, master: master)
                )
                return (openedByRecipient, keys, nil)
            }
        }
        // Master-scope slots first (they give the most access), and among those the cheap
        // ones (device, key file) before the ones that run Argon2; file order breaks ties.
        let order = header.keyslots.indices.sorted { a, b in
            let sa = header.keyslots[a]
            let sb = header.keyslots[b]
            return (sa.scope.rawValue, sa.kind.usesPassword ? 1 : 0, a) < (
                sb.scope.rawValue, sb.kind.usesPassword ? 1 : 0, b
            )
        }
        for index in order {
            let slot = header.keyslots[index]
            guard
                let kek = try keyEncryptionKey(
                    for: slot,
                    credentials: credentials,
                    normalizingPassword: header.followsVersion11Rules
                )
            else { continue }
            guard let secret = unwrap(slot, with: kek, vaultID: header.vaultID) else { continue }
            let master = slot.scope == .masterKey ? MasterKey(secret: secret) : nil
            let base = master.map(baseKey(from:)) ?? BaseKey(secret: secret)
            let keys = VaultKeys(
                master: master,
                base: base,
                deviceSecret: credentials.deviceSecret,
                vaultID: header.vaultID,
                groups: master.map { optionalAccessGroupNames(of: header, master: $0) } ?? [:]
            )
            return (index, keys, kek)
        }
        if mismatched {
            throw VaultFormatError(
                .structure,
                "a recipient stanza opens with this identity but names another key; the vault's owner "
                    + "removes it with 'vaulttool recipients rm'"
            )
        }
        throw VaultFormatError(.wrongCredential, noSlotOpened(header, credentials))
    }

    /// The start of the `wrongCredential` reason when an identity was offered and matched no
    /// recipient stanza; ``noSlotOpened(_:_:)`` begins with it exactly then.
    package static let identityMatchesNoStanza = "the identity is not a recipient of this vault"

    /// Why nothing opened, naming the identity when one was offered (R12-RCP-3): an identity that
    /// matches no stanza says so, without telling which stanzas exist or what the key is.
    static func noSlotOpened(_ header: VaultHeader, _ credentials: Credentials) -> String {
        guard credentials.identity != nil else {
            // Only the TPM was offered, and what it unsealed opens no keyslot: the binding is not
            // the keyslot's own (Spec/tpm2.md R-TPM-4).
            if credentials.tpm2 != nil && !credentials.offersMoreThanTPM2 && !credentials.unsealedKeyFiles.isEmpty {
                return "the key the TPM unsealed opens no keyslot: the TPM2 binding was altered or copied "
                    + "from another vault; open with the password and run 'vaulttool verify'"
            }
            return "wrong password or key file"
        }
        var reason = identityMatchesNoStanza
        if !header.followsVersion12Rules {
            reason += " (it is format \(header.major).\(header.minor), which has no recipients)"
        }
        if credentials.password != nil || credentials.hasKeyFile {
            reason += ", and the password or key file opens no keyslot"
        }
        return reason
    }

    /// The same unlocked keys with a device secret added, for the device-bound classes.
    package static func keys(from keys: VaultKeys, deviceSecret: DeviceSecret, vaultID: [UInt8]) -> VaultKeys {
        guard let base = keys.base else { return keys }
        return VaultKeys(
            master: keys.master,
            base: base,
            deviceSecret: deviceSecret,
            vaultID: vaultID,
            groups: keys.groupNames
        )
    }

    /// The same keys with the record keys of the given access groups (format 2.0, name by key
    /// domain), derived from the master key; `keys` itself without a master key.
    package static func keys(_ keys: VaultKeys, groups: [UInt8: String], vaultID: [UInt8]) -> VaultKeys {
        guard let master = keys.master, let base = keys.base else { return keys }
        let rebuilt = VaultKeys(
            master: master,
            base: base,
            deviceSecret: keys.deviceSecret,
            vaultID: vaultID,
            groups: groups
        )
        // Classes dropped from `keys` (a library's lock) stay dropped, in every domain.
        let dropped = rebuilt.availableClasses.subtracting(keys.classKeys.keys)
        return dropped.isEmpty ? rebuilt : rebuilt.dropping(dropped)
    }

    /// Keys for a new vault's master key.
    public static func keys(master: MasterKey, deviceSecret: DeviceSecret?, vaultID: [UInt8]) -> VaultKeys {
        VaultKeys(master: master, base: baseKey(from: master), deviceSecret: deviceSecret, vaultID: vaultID)
    }
}
