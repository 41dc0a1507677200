// vault: per-item records.

/// An item to be written: identity, classes, attributes and secret.
public struct ItemDraft: Sendable {
    /// The item's stable identifier.
    public var id: ItemID
    /// Generic or internet password.
    public var itemClass: ItemClass
    /// The protection class.
    public var protectionClass: ProtectionClass
    /// The attributes.
    public var attributes: ItemAttributes
    /// The secret.
    public var secret: SecretBytes

    /// Creates a draft.
    public init(
        id: ItemID,
        itemClass: ItemClass = .genericPassword,
        protectionClass: ProtectionClass = .whenUnlocked,
        attributes: ItemAttributes,
        secret: SecretBytes
    ) {
        self.id = id
        self.itemClass = itemClass
        self.protectionClass = protectionClass
        self.attributes = attributes
        self.secret = secret
    }

    /// The attributes that make the item unique.
    public var primaryKey: PrimaryKey { PrimaryKey(itemClass: itemClass, attributes: attributes) }
}

/// A record ready to be placed in a file: its index entry and its bytes.
package struct SealedRecord: Sendable {
    /// The index entry.
    public var entry: IndexEntry
    /// The record bytes.
    public var bytes: [UInt8]

    /// Pairs an entry with its bytes (for records copied unchanged).
    public init(entry: IndexEntry, bytes: [UInt8]) {
        self.entry = entry
        self.bytes = bytes
    }
}

/// Seals and opens records.
///
/// Spec: Spec/format-v1.md, "Records" (R-REC-1 to R-REC-3).
package enum RecordCodec {
    /// The largest secret, 16 MiB.
    public static let maximumSecretByteCount = 16 * 1024 * 1024

    /// The associated data of one ciphertext of a record, followed by `trailing` (the secret's
    /// tag, for the attributes): one array, sized once.
    static func context(
        vaultID: [UInt8],
        entry: IndexEntry,
        label: StaticString,
        trailing: ArraySlice<UInt8> = []
    ) -> [UInt8] {
        var w = ByteWriter(capacity: 64 + trailing.count)
        w.append(UnsafeBufferPointer(start: label.utf8Start, count: label.utf8CodeUnitCount))
        w.append(vaultID)
        withUnsafeBytes(of: entry.itemID.high.bigEndian) { w.append($0) }
        withUnsafeBytes(of: entry.itemID.low.bigEndian) { w.append($0) }
        w.u8(entry.classByte)
        w.u64(entry.version)
        w.append(trailing)
        return w.bytes
    }

    /// Encrypts `draft` as written in generation `version`.
    ///
    /// - Throws: `limit` or `invalidParameter` for values the format cannot hold;
    ///   `deviceSecretRequired` for a `…ThisDeviceOnly` item without a device secret;
    ///   `keyUnavailable` when the class key is missing (a locked vault).
    public static func seal(
        _ draft: ItemDraft,
        version: UInt64,
        vaultID: [UInt8],
        keys: VaultKeys,
        domain: UInt8 = 0,
        random: some RandomSource
    ) throws(VaultFormatError) -> SealedRecord {
        guard draft.secret.count <= maximumSecretByteCount else {
            throw VaultFormatError(.limit, "the secret is larger than 16 MiB")
        }
        if draft.protectionClass.isDeviceBound && keys.deviceSecret == nil {
            throw VaultFormatError(
                .deviceSecretRequired,
                "\(draft.protectionClass) items need this machine's device secret, and none was given"
            )
        }
        let recordKeys = try keys.recordKeys(for: draft.protectionClass, domain: domain)
        var attributes = try AttributesCodec.encode(draft.attributes, itemClass: draft.itemClass)
        defer { Sodium.wipe(&attributes) }
        let entry = IndexEntry(
            tag: keys.lookupTag(draft.primaryKey),
            itemID: draft.id,
            itemClass: draft.itemClass,
            protectionClass: draft.protectionClass,
            version: version,
            attributesLength: attributes.count,
            secretLength: draft.secret.count,
            domain: domain
        )
        let nonce = random.bytes(XChaCha20Poly1305.nonceByteCount)
        var out = [UInt8]()
        out.reserveCapacity(entry.recordLength)
        out.append(contentsOf: nonce)
        if draft.protectionClass.isDeviceBound {
            guard let marker = keys.deviceMarker(nonce: nonce) else {
                throw VaultFormatError(.deviceSecretRequired, "device-bound items need this machine's device secret")
            }
            out.append(contentsOf: marker)
        }
        let paddedSecret = SecretBytes(count: entry.paddedSecretLength) { buffer in
            draft.secret.withUnsafeBytes { buffer.copyMemory(from: $0) }
        }
        XChaCha20Poly1305.seal(
            paddedSecret,
            using: recordKeys.secret,
            nonce: nonce,
            authenticating: context(vaultID: vaultID, entry: entry, label: "VLT1secr"),
            appendingTo: &out
        )
        let secretTag = out.suffix(XChaCha20Poly1305.tagByteCount)
        attributes.append(contentsOf: repeatElement(0, count: entry.paddedAttributesLength - attributes.count))
        XChaCha20Poly1305.seal(
            attributes,
            using: recordKeys.attributes,
            nonce: nonce,
            authenticating: context(vaultID: vaultID, entry: entry, label: "VLT1attr") + secretTag,
            appendingTo: &out
        )
        return SealedRecord(entry: entry, bytes: out)
    }

    struct Parts {
        let nonce: ArraySlice<UInt8>
        let secret: ArraySlice<UInt8>
        let attributes: ArraySlice<UInt8>
    }

    static func split(_ record: ArraySlice<UInt8>, entry: IndexEntry, vaultID: [UInt8], keys: VaultKeys)
        throws(VaultFormatError) -> Parts
    {
        guard record.count == entry.recordLength else {
            throw VaultFormatError(.recordCorrupt, "a record has the wrong length")
        }
        var r = ByteReader(record, failure: .recordCorrupt)
        let nonce = try r.read(XChaCha20Poly1305.nonceByteCount, "nonce")
        let marker = entry.protectionClass.isDeviceBound ? try r.read(16, "device marker") : nil
        let secret = try r.read(entry.paddedSecretLength + XChaCha20Poly1305.tagByteCount, "secret")
        let attributes = try r.read(entry.paddedAttributesLength + XChaCha20Poly1305.tagByteCount, "attributes")
        let parts = Parts(nonce: nonce, secret: secret, attributes: attributes)
        if let marker {
            guard let own = keys.deviceMarker(nonce: nonce) else {
                throw VaultFormatError(
                    .foreignDevice,
                    "this item is bound to a device; its secret is not available here"
                )
            }
            // R11-DEV-2: an item ID carrying this device's tag makes the record ours by the
            // authenticated index, whatever the record's bytes say: any damage is recordCorrupt.
            if keys.isOwnDeviceItem(entry.itemID) {
                guard Sodium.constantTimeEqual(marker, own) else {
                    throw VaultFormatError(.recordCorrupt, "a device-bound record of this device is damaged")
                }
            } else if !Sodium.constantTimeEqual(marker, own) {
                // Another device's record, unless the marker of one of ours was altered: if our
                // key opens it, the marker was tampered with (R-REC-2).
                let recordKeys = try keys.recordKeys(for: entry.protectionClass, domain: entry.domain)
                let ad = context(vaultID: vaultID, entry: entry, label: "VLT1secr")
                if var plain = XChaCha20Poly1305.open(
                    secret,
                    using: recordKeys.secret,
                    nonce: nonce,
                    authenticating: ad
                ) {
                    Sodium.wipe(&plain)
                    throw VaultFormatError(.recordCorrupt, "a device-bound record's device marker was altered")
                }
                throw VaultFormatError(.foreignDevice, "this item belongs to another device")
            }
        }
        return parts
    }

    /// Decrypts a record's attributes and checks that its lookup tag matches (R-IDX-5).
    public static func openAttributes(
        _ record: ArraySlice<UInt8>,
        entry: IndexEntry,
        vaultID: [UInt8],
        keys: VaultKeys
    ) throws(VaultFormatError) -> ItemAttributes {
        var plain = try open(.attributes, of: record, entry: entry, vaultID: vaultID, keys: keys)
        defer { Sodium.wipe(&plain) }
        let attributes = try AttributesCodec.decode(plain[...], itemClass: entry.itemClass)
        guard keys.lookupTag(PrimaryKey(itemClass: entry.itemClass, attributes: attributes)) == entry.tag else {
            throw VaultFormatError(.recordCorrupt, "an item's lookup tag does not match its attributes")
        }
        if entry.domain != 0 { try checkAccessGroup(attributes, ofDomain: entry.domain, keys: keys) }
        return attributes
    }

    /// Checks that a record of key domain `domain` ≥ 1 claims the access group of that domain
    /// (R2-GRP-5): every holder of the group key can seal a record in the domain, a limited
    /// recipient included, so what the record says its group is must be checked against the
    /// header, which only a holder of `MK` writes. Keys without the group names (a limited
    /// recipient's) cannot check and accept the record.
    ///
    /// Spec: Spec/format-v2.md, "Which key domain an item is sealed in" (R2-GRP-5).
    private static func checkAccessGroup(_ attributes: ItemAttributes, ofDomain domain: UInt8, keys: VaultKeys)
        throws(VaultFormatError)
    {
        guard let name = keys.groupNames[domain] else { return }
        // Byte for byte, not Swift's canonical-equivalence `==` (R2-GRP-3).
        guard attributes.accessGroup.utf8.elementsEqual(name.utf8) else {
            throw VaultFormatError(
                .recordCorrupt,
                "an item sealed under one access group's key claims another access group"
            )
        }
    }

    /// Decrypts a record's attributes as every read for a caller does: ``openAttributes(_:entry:vaultID:keys:)``
    /// (authentication, R-IDX-5, R2-GRP-5), then R2-GRP-6. Writers that move a group's items into
    /// its new domain call ``openAttributes(_:entry:vaultID:keys:)`` alone.
    package static func openCheckedAttributes(
        _ record: ArraySlice<UInt8>,
        entry: IndexEntry,
        vaultID: [UInt8],
        keys: VaultKeys
    ) throws(VaultFormatError) -> ItemAttributes {
        let attributes = try openAttributes(record, entry: entry, vaultID: vaultID, keys: keys)
        try checkUngroupedRecord(attributes, entry: entry, keys: keys)
        return attributes
    }

    /// Checks that a record of domain 0 does not claim an access group that has a key domain
    /// (R2-GRP-6): such a group's items are sealed in its domain (R2-GRP-3, R2-GRP-4), so a
    /// domain-0 record that claims it was sealed by a holder of `BK` or `MK` against the rules, or
    /// rolled back to a ciphertext from before the group had its domain. Keys without the group
    /// names cannot check and accept the record. Readers for callers apply it
    /// (``VaultSnapshot``); a writer moving items into a new domain reads them before it does.
    ///
    /// Spec: Spec/format-v2.md, "Which key domain an item is sealed in" (R2-GRP-6).
    package static func checkUngroupedRecord(_ attributes: ItemAttributes, entry: IndexEntry, keys: VaultKeys)
        throws(VaultFormatError)
    {
        guard entry.domain == 0, !attributes.accessGroup.isEmpty, !keys.groupNames.isEmpty else { return }
        if KeyHierarchy.domain(ofGroupNamed: attributes.accessGroup, in: keys.groupNames) != nil {
            throw VaultFormatError(
                .recordCorrupt,
                "an item outside every access group's key claims an access group that has its own key"
            )
        }
    }

    /// Decrypts a record's secret.
    public static func openSecret(
        _ record: ArraySlice<UInt8>,
        entry: IndexEntry,
        vaultID: [UInt8],
        keys: VaultKeys
    ) throws(VaultFormatError) -> SecretBytes {
        var plain = try open(.secret, of: record, entry: entry, vaultID: vaultID, keys: keys)
        defer { Sodium.wipe(&plain) }
        return SecretBytes(bytes: plain)
    }

    /// Decrypts a whole record (secret, then attributes) into the draft that would seal it again
    /// under other keys: the same ID, classes, attributes and secret (rekey, re-tagging).
    public static func openDraft(
        _ record: ArraySlice<UInt8>,
        entry: IndexEntry,
        vaultID: [UInt8],
        keys: VaultKeys
    ) throws(VaultFormatError) -> ItemDraft {
        let secret = try openSecret(record, entry: entry, vaultID: vaultID, keys: keys)
        return ItemDraft(
            id: entry.itemID,
            itemClass: entry.itemClass,
            protectionClass: entry.protectionClass,
            attributes: try openAttributes(record, entry: entry, vaultID: vaultID, keys: keys),
            secret: secret
        )
    }

    /// One of a record's two ciphertexts.
    private enum Ciphertext {
        case secret, attributes
    }

    /// Splits `record`, opens one of its ciphertexts under its class key and strips the padding,
    /// which must be zero (R-REC-1): the one decryption behind ``openSecret(_:entry:vaultID:keys:)``
    /// and ``openAttributes(_:entry:vaultID:keys:)``. The attributes' associated data ends with
    /// the secret's tag.
    ///
    /// - Returns: The first `secretLength` or `attributesLength` bytes of the plaintext; the
    ///   caller wipes them.
    private static func open(
        _ which: Ciphertext,
        of record: ArraySlice<UInt8>,
        entry: IndexEntry,
        vaultID: [UInt8],
        keys: VaultKeys
    ) throws(VaultFormatError) -> [UInt8] {
        let parts = try split(record, entry: entry, vaultID: vaultID, keys: keys)
        let recordKeys = try keys.recordKeys(for: entry.protectionClass, domain: entry.domain)
        let (ciphertext, key, ad, length, what) =
            switch which {
            case .secret:
                (
                    parts.secret, recordKeys.secret, context(vaultID: vaultID, entry: entry, label: "VLT1secr"),
                    entry.secretLength, "secret"
                )
            case .attributes:
                (
                    parts.attributes, recordKeys.attributes,
                    context(vaultID: vaultID, entry: entry, label: "VLT1attr", trailing: parts.secret.suffix(16)),
                    entry.attributesLength, "attributes"
                )
            }
        guard var plain = XChaCha20Poly1305.open(ciphertext, using: key, nonce: parts.nonce, authenticating: ad) else {
            throw VaultFormatError(.recordCorrupt, "an item's \(what) failed authentication")
        }
        guard plain[length...].allSatisfy({ $0 == 0 }) else {
            Sodium.wipe(&plain)
            throw VaultFormatError(.recordCorrupt, "an item's \(what) padding is not zero")
        }
        plain.removeLast(plain.count - length)  // in place: no copy of the plaintext is left behind
        return plain
    }
}
