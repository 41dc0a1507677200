// vault: the header field that binds a key-file keyslot to a TPM-sealed key file.

/// What a TPM seals and how: the policy and the two TPM blobs of one sealed object.
///
/// Used by a ``TPM2Binding`` (a TPM2 keyslot) and by a TPM-sealed device-secret file. The blobs
/// are in the TPM's own marshaling, exactly as `tpm2_create -u pub -r priv` writes them.
///
/// Spec: Spec/tpm2.md, §2 and §3.
public struct TPM2SealedObject: Hashable, Sendable {
    /// The parent template of Spec/tpm2.md §2 (ECC P-256 "SRK"), the only one defined.
    public static let eccParent: UInt16 = 0x0023
    /// `TPM_ALG_SHA256`, the PCR bank of a policy.
    public static let sha256Bank: UInt16 = 0x000B
    /// The largest blob accepted.
    public static let maximumBlobByteCount = 1024

    /// Whether unsealing needs a PIN (the object has an authValue and counts failures).
    public var requiresPIN: Bool
    /// The PCRs of the SHA-256 bank in the policy: bit `i` is PCR `i`; 0 for none.
    public var pcrMask: UInt32
    /// `TPM2B_PUBLIC`, marshaled.
    public var publicArea: [UInt8]
    /// `TPM2B_PRIVATE`, marshaled (encrypted by the TPM under its parent).
    public var privateArea: [UInt8]

    /// Creates a description of a sealed object.
    public init(requiresPIN: Bool, pcrMask: UInt32, publicArea: [UInt8], privateArea: [UInt8]) {
        self.requiresPIN = requiresPIN
        self.pcrMask = pcrMask
        self.publicArea = publicArea
        self.privateArea = privateArea
    }

    /// The mask of `pcrs` (SHA-256 PCR numbers, 0 to 23).
    ///
    /// - Throws: `invalidParameter` for a number out of range.
    package static func pcrMask(_ pcrs: [Int]) throws -> UInt32 {
        guard pcrs.allSatisfy({ (0..<24).contains($0) }) else {
            throw VaultFormatError(.invalidParameter, "a PCR is a number from 0 to 23")
        }
        return pcrs.reduce(UInt32(0)) { $0 | 1 << UInt32($1) }
    }

    /// The PCR numbers in the policy, in ascending order.
    public var pcrs: [Int] { (0..<24).filter { pcrMask & (1 << UInt32($0)) != 0 } }

    /// flags, parent, pcrBank, pcrMask, public, private (Spec/tpm2.md §3, offsets 33 on).
    func encode(into w: inout ByteWriter) {
        w.u8(requiresPIN ? 1 : 0)
        w.u16(Self.eccParent)
        w.u16(pcrMask == 0 ? 0 : Self.sha256Bank)
        w.u32(pcrMask)
        w.u16(UInt16(publicArea.count))
        w.append(publicArea)
        w.u16(UInt16(privateArea.count))
        w.append(privateArea)
    }

    /// Decodes the layout `encode` writes, or `nil` when it breaks a rule (R-TPM-1).
    static func decode(_ r: inout ByteReader) -> TPM2SealedObject? {
        do {
            let flags = try r.u8("flags")
            guard flags & ~1 == 0, try r.u16("parent") == eccParent else { return nil }
            let bank = try r.u16("PCR bank")
            let mask = try r.u32("PCR mask")
            guard mask & 0xFF00_0000 == 0, bank == (mask == 0 ? 0 : sha256Bank) else { return nil }
            let publicLength = Int(try r.u16("public length"))
            guard (1...maximumBlobByteCount).contains(publicLength) else { return nil }
            let publicArea = Array(try r.read(publicLength, "public"))
            let privateLength = Int(try r.u16("private length"))
            guard (1...maximumBlobByteCount).contains(privateLength) else { return nil }
            let privateArea = Array(try r.read(privateLength, "private"))
            return TPM2SealedObject(
                requiresPIN: flags & 1 != 0,
                pcrMask: mask,
                publicArea: publicArea,
                privateArea: privateArea
            )
        } catch {
            return nil
        }
    }

    /// flags, parent, pcrBank, pcrMask, public, private: a binding from offset 33, and the body of
    /// a TPM-sealed device-secret file (Spec/tpm2.md L-TPM-6).
    public var encoded: [UInt8] {
        var w = ByteWriter(capacity: 13 + publicArea.count + privateArea.count)
        encode(into: &w)
        return w.bytes
    }

    /// Decodes ``encoded``, or `nil` when the bytes break a rule of Spec/tpm2.md §3 or have bytes left over.
    public static func decode(_ bytes: ArraySlice<UInt8>) -> TPM2SealedObject? {
        var r = ByteReader(bytes)
        guard let object = decode(&r), r.isAtEnd else { return nil }
        return object
    }

    /// The TPM authValue for `pin`: `BLAKE2b(32, "", "VLT1tpin" || NFC(pin))` (Spec/tpm2.md §2).
    public static func authValue(pin: SecretBytes) -> SecretBytes {
        var bytes = BLAKE2b.hash([Array("VLT1tpin".utf8), PasswordNormalization.nfc(pin)], length: 32)
        defer { Sodium.wipe(&bytes) }
        return SecretBytes(bytes: bytes, protection: .guarded)
    }
}

/// A TPM2 keyslot's binding: the header field (type `0x0002`, non-critical) that holds a sealed
/// object and names, by its salt, the key-file keyslot whose key file the object seals.
///
/// Spec: Spec/tpm2.md, §3 (R-TPM-1 to R-TPM-6).
public struct TPM2Binding: Hashable, Sendable {
    /// The header field type.
    public static let fieldType: UInt16 = 0x0002
    /// The most bindings a file may hold (R-TPM-6).
    public static let maximumCount = 32

    /// The salt of the kind 2 keyslot this binding opens.
    public var slotSalt: [UInt8]
    /// The sealed key file.
    public var sealed: TPM2SealedObject

    /// Creates a binding.
    public init(slotSalt: [UInt8], sealed: TPM2SealedObject) {
        self.slotSalt = slotSalt
        self.sealed = sealed
    }

    /// The field value.
    public var encoded: [UInt8] {
        var w = ByteWriter(capacity: 46 + sealed.publicArea.count + sealed.privateArea.count)
        w.u8(1)
        w.append(slotSalt)
        sealed.encode(into: &w)
        return w.bytes
    }

    /// Decodes a field value, or `nil` when it is not a binding (then it stays an unknown field).
    public static func decode(_ value: [UInt8]) -> TPM2Binding? {
        var r = ByteReader(value)
        guard (try? r.u8("format")) == 1, let salt = try? r.read(32, "slot salt"),
            let sealed = TPM2SealedObject.decode(&r), r.isAtEnd
        else { return nil }
        return TPM2Binding(slotSalt: Array(salt), sealed: sealed)
    }

    /// The binding's field, to add to a header.
    public var field: VaultHeader.UnknownField { VaultHeader.UnknownField(type: Self.fieldType, value: encoded) }
}

extension VaultHeader {
    /// The TPM2 bindings that name a key-file keyslot of this header, in field order, at most 32
    /// (R-TPM-1, R-TPM-6); orphaned bindings and fields that do not decode are left out.
    public var tpm2Bindings: [TPM2Binding] {
        let salts = Set(keyslots.filter { $0.kind == .keyFile }.map(\.salt))
        return Array(
            unknownFields.lazy.filter { $0.type == TPM2Binding.fieldType }
                .compactMap { TPM2Binding.decode($0.value) }.prefix(TPM2Binding.maximumCount)
                .filter { salts.contains($0.slotSalt) }
        )
    }

    /// A test for "a TPM2 keyslot of this header" (a key-file keyslot a binding names), which
    /// decodes the bindings once for every slot it is asked about.
    package var isTPM2Keyslot: (Keyslot) -> Bool {
        let bound = Set(tpm2Bindings.map(\.slotSalt))
        return { $0.kind == .keyFile && bound.contains($0.salt) }
    }

    /// Whether `slots`, or a full recipient of this header, open the master key without a TPM
    /// (Spec/tpm2.md L-TPM-2).
    package func hasWayInBesidesTPM2(_ slots: [Keyslot]) -> Bool {
        let isTPM2 = isTPM2Keyslot
        return slots.contains { $0.scope == .masterKey && !isTPM2($0) } || recipientStanzas.contains { !$0.isLimited }
    }

    /// The binding that names `slot`, when it is a TPM2 keyslot.
    public func tpm2Binding(for slot: Keyslot) -> TPM2Binding? {
        slot.kind == .keyFile ? tpm2Bindings.first { $0.slotSalt == slot.salt } : nil
    }

    /// The non-critical fields a writer carries: every unknown field, without the bindings whose
    /// keyslot is gone (R-TPM-5) and without the bindings past the 32nd, which no reader uses
    /// (R-TPM-6).
    package var unknownFieldsWithoutOrphanedBindings: [UnknownField] {
        let salts = Set(keyslots.filter { $0.kind == .keyFile }.map(\.salt))
        var seen = 0
        return unknownFields.filter { field in
            guard field.type == TPM2Binding.fieldType, let binding = TPM2Binding.decode(field.value) else {
                return true
            }
            seen += 1
            return seen <= TPM2Binding.maximumCount && salts.contains(binding.slotSalt)
        }
    }

    /// How many bindings a writer of this header writes (orphans and those past the 32nd dropped).
    package var writtenBindingCount: Int {
        unknownFieldsWithoutOrphanedBindings.count {
            $0.type == TPM2Binding.fieldType && TPM2Binding.decode($0.value) != nil
        }
    }
}
