// vault: keyslot decoding (Spec section 5, R-KS-1) and KDF parameter limits (R-KS-2, R-KS-4).

import Testing

@testable import VaultFormat

@Suite("Keyslot decoding")
struct KeyslotDecodeTests {
    private let vault = TestVault(seed: "keyslots")

    /// A password keyslot laid out by hand from the table in Spec section 5.
    private func passwordSlotBytes(kind: UInt8 = 1, scope: UInt8 = 0, kdf: UInt8 = 1, saltLength: Int = 32) -> [UInt8] {
        var w = ByteWriter()
        w.u8(kind)
        w.u8(scope)
        w.u8(kdf)
        w.u32(64)
        w.u32(1)
        w.u32(1)
        w.u8(UInt8(truncatingIfNeeded: saltLength))
        w.append([UInt8](repeating: 0xA5, count: saltLength))
        w.append([UInt8](repeating: 0x24, count: 24))
        w.append([UInt8](repeating: 0x48, count: 48))
        return w.bytes
    }

    @Test func decode_roundTripsEveryKind() throws {
        let device = TestVault.deviceSecret(seed: "device")
        let slots = [
            try vault.passwordSlot(),
            try vault.passwordSlot("base", scope: .baseKey),
            try vault.keyFileSlot([1, 2, 3]),
            try vault.passwordAndKeyFileSlot("pw", [4, 5, 6]),
            try vault.deviceSlot(device),
        ]
        for slot in slots {
            #expect(try Keyslot.decode(slot.encoded[...]) == slot)
        }
        // Spec section 5: 88 + n bytes for kinds 1 and 3, 106 bytes for kinds 2 and 4.
        #expect(slots.map(\.encoded.count) == [120, 120, 106, 120, 106])
    }

    @Test func decode_handLaidPasswordSlot_readsEveryField() throws {
        let slot = try Keyslot.decode(passwordSlotBytes()[...])
        #expect(slot.kind == .password && slot.scope == .masterKey)
        #expect(slot.kdf == KDFParameters(memoryKiB: 64, iterations: 1, lanes: 1))
        #expect(slot.salt == [UInt8](repeating: 0xA5, count: 32))
        #expect(slot.nonce == [UInt8](repeating: 0x24, count: 24))
        #expect(slot.wrapped == [UInt8](repeating: 0x48, count: 48))
    }

    // R-KS-1
    @Test(arguments: [UInt8(0), 5, 255])
    func decode_withUnknownKind_throwsStructure(kind: UInt8) {
        #expect(throws: VaultFormatError(.structure)) { try Keyslot.decode(passwordSlotBytes(kind: kind)[...]) }
    }

    // R-KS-1
    @Test(arguments: [UInt8(2), 255])
    func decode_withUnknownScope_throwsStructure(scope: UInt8) {
        #expect(throws: VaultFormatError(.structure)) { try Keyslot.decode(passwordSlotBytes(scope: scope)[...]) }
    }

    // R-KS-1
    @Test func decode_withTrailingOrMissingBytes_throwsStructure() throws {
        let keyFile = try vault.keyFileSlot([7]).encoded
        let cases: [[UInt8]] = [
            passwordSlotBytes() + [0], Array(passwordSlotBytes().dropLast()), keyFile + [0], Array(keyFile.dropLast()),
            [1],
        ]
        for bytes in cases {
            #expect(throws: VaultFormatError(.structure)) { try Keyslot.decode(bytes[...]) }
        }
    }

    // R-KS-1: for kinds 1 and 3, a saltLength outside 16...64 is kdfRejected.
    @Test(arguments: [0, 8, 15, 65, 255])
    func decode_withSaltLengthOutside16To64_throwsKDFRejected(saltLength: Int) {
        #expect(throws: VaultFormatError(.kdfRejected)) {
            try Keyslot.decode(passwordSlotBytes(saltLength: saltLength)[...])
        }
    }

    @Test(arguments: [16, 32, 64])
    func decode_withSaltLengthInside16To64_succeeds(saltLength: Int) throws {
        #expect(try Keyslot.decode(passwordSlotBytes(saltLength: saltLength)[...]).salt.count == saltLength)
    }

    // R-KS-1: for kinds 1 and 3, kdf ≠ 1 is kdfRejected.
    @Test(arguments: [UInt8(0), 2])
    func decode_withUnknownKDFAlgorithm_throwsKDFRejected(kdf: UInt8) {
        #expect(throws: VaultFormatError(.kdfRejected)) { try Keyslot.decode(passwordSlotBytes(kdf: kdf)[...]) }
    }

    // R-KS-2: a file whose keyslot asks for too much memory is refused before Argon2 runs.
    @Test func open_withKeyslotOverMemoryCeiling_throwsKDFRejected() throws {
        let file = try vault.file()
        var header = try EditableHeader(file)
        var slot = header.values(Field.keyslot)[0]
        slot.replaceSubrange(3..<7, with: [UInt8].le(UInt32(1_048_577)))
        header.replace(Field.keyslot, with: slot)
        #expect(throws: VaultFormatError(.kdfRejected)) { try TestVault.open(header.file()) }
    }

    // R-KS-4: new password keyslots get a 32-byte salt and fresh salt and nonce.
    @Test func makeKeyslot_drawsFresh32ByteSaltAndNonce() throws {
        let a = try vault.passwordSlot()
        let b = try vault.passwordSlot()
        #expect(a.salt.count == 32 && a.nonce.count == 24 && a.wrapped.count == 48)
        #expect(a.salt != b.salt && a.nonce != b.nonce)
    }

    // R-KS-4: without `allowWeak`, weak parameters are refused before Argon2 runs.
    @Test func makeKeyslot_withWeakParameters_throwsKDFRejected() {
        #expect(throws: VaultFormatError(.kdfRejected)) {
            try KeyHierarchy.makeKeyslot(
                kind: .password,
                wrapping: vault.master.secret,
                scope: .masterKey,
                credentials: .password("pw"),
                kdf: TestVault.tinyKDF,
                vaultID: vault.vaultID,
                random: vault.random
            )
        }
    }

    @Test func makeKeyslot_withoutNeededCredential_throwsInvalidParameter() {
        #expect(throws: VaultFormatError(.invalidParameter)) {
            try KeyHierarchy.makeKeyslot(
                kind: .keyFile,
                wrapping: vault.master.secret,
                scope: .masterKey,
                credentials: .password("pw"),
                vaultID: vault.vaultID,
                random: vault.random
            )
        }
        #expect(throws: VaultFormatError(.invalidParameter)) {
            try KeyHierarchy.makeKeyslot(
                kind: .device,
                wrapping: vault.master.secret,
                scope: .baseKey,
                credentials: .password("pw"),
                vaultID: vault.vaultID,
                random: vault.random
            )
        }
    }
}

@Suite("KDF parameters")
struct KDFParametersTests {
    private func reading(_ m: UInt32, _ t: UInt32, _ p: UInt32) -> Bool {
        (try? KDFParameters(memoryKiB: m, iterations: t, lanes: p).validateForReading()) != nil
    }

    private func writing(_ m: UInt32, _ t: UInt32, _ p: UInt32) -> Bool {
        (try? KDFParameters(memoryKiB: m, iterations: t, lanes: p).validateForWriting()) != nil
    }

    // R-KS-2: every limit at its edge is accepted.
    @Test func validateForReading_acceptsEdges() {
        #expect(reading(8, 1, 1))  // 8 × lanes
        #expect(reading(64, 16, 8))  // 8 × 8 lanes, 16 passes
        #expect(reading(1_048_576, 4, 8))  // 1 GiB × 4 = 4,194,304
        #expect(reading(262_144, 16, 1))  // 256 MiB × 16 = 4,194,304
    }

    // R-KS-2: one step past any limit is refused.
    @Test func validateForReading_rejectsOnePastEachLimit() {
        #expect(!reading(7, 1, 1))  // memory < 8 × lanes
        #expect(!reading(31, 1, 4))
        #expect(!reading(1_048_577, 1, 1))  // memory > 1 GiB
        #expect(!reading(64, 0, 1))  // iterations < 1
        #expect(!reading(64, 17, 1))  // iterations > 16
        #expect(!reading(64, 1, 0))  // lanes < 1
        #expect(!reading(72, 1, 9))  // lanes > 8
        #expect(!reading(1_048_576, 5, 1))  // memory × passes > 4,194,304
        #expect(!reading(262_145, 16, 1))
    }

    @Test func validateForReading_throwsKDFRejected() {
        #expect(throws: VaultFormatError(.kdfRejected)) {
            try KDFParameters(memoryKiB: .max, iterations: .max, lanes: .max).validateForReading()
        }
    }

    // R-KS-4: memoryKiB >= 19,456 and iterations >= 2 for new keyslots.
    @Test func validateForWriting_enforcesOWASPFloors() {
        #expect(writing(19_456, 2, 1))
        #expect(!writing(19_455, 2, 1))
        #expect(!writing(19_456, 1, 1))
        #expect(!writing(1_048_576, 5, 1))  // floors do not lift the ceilings
        #expect(KDFParameters(memoryKiB: 19_455, iterations: 3, lanes: 1).isWeak)
        #expect(!KDFParameters(memoryKiB: 19_456, iterations: 2, lanes: 1).isWeak)
    }

    // R-KS-4: the default is 65,536 KiB, 3 passes, 2 lanes; every preset is writable.
    @Test func defaultAndPresets_areValidForWriting() throws {
        #expect(KDFParameters.default == KDFParameters(memoryKiB: 65_536, iterations: 3, lanes: 2))
        for preset in KDFParameters.presets {
            try preset.parameters.validateForWriting()
        }
    }

    // R-KS-4: a reader accepts weak parameters that pass R-KS-2 and flags the vault as weak.
    @Test func header_withWeakKeyslot_isFlaggedButOpens() throws {
        let vault = TestVault(seed: "weak")
        let snapshot = try TestVault.open(
            try vault.file(slots: [try vault.keyFileSlot([1]), try vault.passwordSlot()])
        )
        #expect(snapshot.header.weakKeyslots == [1])
    }
}
