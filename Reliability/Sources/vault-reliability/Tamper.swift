// vault reliability, suite 6: every bit flip and every truncation of every valid fixture.

import Foundation
import Glibc
import VaultFormat
import _VaultHooks

/// Suite 6: the tamper matrix.
///
/// For each file of `Fixtures/v1` that a success case opens (with the case that reads every
/// item: `unavailable` 0), every bit of every byte is flipped, one at a time, and the file is
/// truncated at every offset. Each variant is opened and fully read (every item and secret,
/// then `verify`), and must be rejected with a `VaultFormatError` of the class its region
/// implies:
///
/// | Region | Covered by | Expected |
/// |---|---|---|
/// | preamble (magic, versions, header length) | checksum, magic and version checks | notAVault, unsupportedVersion, structure, truncated, headerCorrupt |
/// | header fields (keyslots, index fields, sizes) | header checksum | headerCorrupt |
/// | header checksum | itself | headerCorrupt |
/// | header MAC | BLAKE2b MAC under the header key | headerAuthentication |
/// | index | index AEAD | indexCorrupt |
/// | records | record AEAD | recordCorrupt |
/// | nonce of a device-bound record, untagged ID | marker + AEAD | recordCorrupt or foreignDevice (R-REC-2 residual risk) |
/// | nonce of this device's record, tagged ID (format 1.1) | ID in the index, marker, AEAD | recordCorrupt (R11-DEV-2) |
/// | truncation | header file length | truncated (notAVault at length 0) |
///
/// Never: acceptance, a crash, or `wrongCredential` (a single flip cannot fix the header
/// checksum, so a keyslot change is always caught as `headerCorrupt` before any KDF runs).
///
/// Then every header bit from the minor version on is flipped again **with the checksum
/// recomputed**, as an editor would: the header MAC must reject it (`headerAuthentication`),
/// or, in a keyslot, the unlock fails first (`wrongCredential`, the one case the spec allows),
/// or the edited field is refused (`kdfRejected`, `structure`, ...). Never accepted.
///
/// Sampling (documented in RELIABILITY.md): files over 64 KiB get every bit of the header and
/// the index (quick: one bit of every 13th index byte) and one bit of every 97th record byte
/// (quick: every 997th), the bit rotating with the offset. `v1_default_kdf` (64 MiB Argon2id)
/// gets one bit per byte of its MAC, the only region where a flip reaches the KDF. Flips
/// outside the header reuse the keys unlocked from the pristine file (the header bytes, and so
/// the unlock, are identical), which keeps the 1,000-item file affordable.
enum Tamper {
    struct Manifest: Decodable {
        struct Case: Decodable {
            struct Creds: Decodable {
                var password: String?
                var keyFile: String?
                var deviceSecret: String?
                var identity: String?
            }
            var name: String
            var file: String
            var expect: String
            var credentials: Creds
            var unavailable: Int?
        }
        var cases: [Case]
    }

    enum Region: String, CaseIterable {
        case preamble, fields, checksum, mac, index, records, deviceNonce, ownDeviceNonce, truncation, checksumFixed

        var expected: Set<String> {
            switch self {
            case .preamble: ["notAVault", "unsupportedVersion", "structure", "truncated", "headerCorrupt"]
            case .fields, .checksum: ["headerCorrupt"]
            case .mac: ["headerAuthentication"]
            case .index: ["indexCorrupt"]
            case .records: ["recordCorrupt"]
            // R-REC-2, residual risk: a changed nonce changes the expected marker and breaks the AEAD,
            // which is exactly what another machine's record looks like.
            case .deviceNonce: ["recordCorrupt", "foreignDevice"]
            // Format 1.1, R11-DEV-2: the record's ID in the authenticated index is tagged for this
            // device, so damage to its nonce is damage. Counted as rejected only as recordCorrupt.
            case .ownDeviceNonce: ["recordCorrupt"]
            case .truncation: ["truncated", "notAVault"]
            // A flip whose checksum was recomputed gets past the checksum: the MAC must catch it, or,
            // in a keyslot, the unlock fails first (the spec's one wrongCredential exception); a field
            // that no longer parses is refused as such.
            case .checksumFixed:
                [
                    "headerAuthentication", "wrongCredential", "kdfRejected", "structure", "truncated",
                    "unsupportedFeature", "unsupportedVersion", "limit",
                ]
            }
        }
    }

    /// A file of `length` bytes, the first `length` of `bytes`.
    struct Source: RecordSource {
        let bytes: [UInt8]
        let length: Int
        func read(offset: Int, count: Int) throws -> ArraySlice<UInt8> {
            guard offset >= 0, count >= 0, offset <= length - count else {
                throw VaultFormatError(.truncated, "the file ends early")
            }
            return bytes[offset..<offset + count]
        }
    }

    struct Counts {
        var variants = 0, accepted = 0, wrongCredential = 0, unexpected = 0, other = 0
        var codes: [Region: [String: Int]] = [:]

        mutating func add(_ other: Counts) {
            variants += other.variants
            accepted += other.accepted
            wrongCredential += other.wrongCredential
            unexpected += other.unexpected
            self.other += other.other
            for (region, codes) in other.codes {
                for (code, n) in codes { self.codes[region, default: [:]][code, default: 0] += n }
            }
        }
    }

    static func run(_ mode: Mode, fixtures: String) -> Tally {
        let tally = Tally()
        guard let data = FileManager.default.contents(atPath: fixtures + "/manifest.json"),
            let manifest = try? JSONDecoder().decode(Manifest.self, from: data)
        else {
            tally.fail("tamper: cannot read \(fixtures)/manifest.json")
            return tally
        }
        // "tamper" for Fixtures/v1, "tamper-<folder>" for the later versions (tamper-v1.1, tamper-v2, ...).
        let folder = fixtures.split(separator: "/").last.map(String.init) ?? fixtures
        let suiteName = folder == "v1" ? "tamper" : "tamper-\(folder)"
        // One case per file: the one that reads every item, with the most credentials.
        var chosen: [String: Manifest.Case] = [:]
        for c in manifest.cases where c.expect == "success" && (c.unavailable ?? 0) == 0 {
            func weight(_ c: Manifest.Case) -> Int {
                [c.credentials.password, c.credentials.keyFile, c.credentials.deviceSecret, c.credentials.identity]
                    .compactMap { $0 }.count
            }
            if let existing = chosen[c.file], weight(existing) >= weight(c) { continue }
            chosen[c.file] = c
        }
        let covered = Set(manifest.cases.filter { $0.expect == "success" }.map(\.file))
        // Files that no case reads completely (a foreign item is always there, or the file is
        // already damaged for the device that could read it) are not tampered with: listed, and
        // in Fixtures/v1 there must be none.
        let skipped = covered.subtracting(chosen.keys).sorted()
        if !skipped.isEmpty { print("  not tampered (no case reads every item): \(skipped.joined(separator: ", "))") }
        tally.check(
            suiteName != "tamper" || skipped.isEmpty,
            "tamper: some success fixture has no case that reads every item"
        )
        print("Tamper matrix: \(chosen.count) valid fixtures, every bit flipped and every truncation")
        print("  fixture                           bytes  variants  rejected  accepted  wrongCred  unexpected")
        var total = Counts()
        for file in chosen.keys.sorted() {
            let c = chosen[file]!
            guard let bytes = readBytes(fixtures + "/" + file) else {
                tally.fail("tamper: cannot read \(file)")
                continue
            }
            var credentials = Credentials()
            if let p = c.credentials.password { credentials.password = SecretBytes(bytes: Array(p.utf8)) }
            if let k = c.credentials.keyFile, let key = readBytes(fixtures + "/" + k) {
                credentials.keyFile = SecretBytes(bytes: key)
            }
            if let hex = c.credentials.deviceSecret {
                credentials.deviceSecret = DeviceSecret(secret: SecretBytes(bytes: decodeHex(hex)))
            }
            if let i = c.credentials.identity, let text = readBytes(fixtures + "/" + i) {
                credentials.identity = try? RecipientIdentity(fileContents: text)
            }
            let counts = matrix(file: file, bytes: bytes, credentials: credentials, mode: mode, tally: tally)
            total.add(counts)
            let rejected = counts.variants - counts.accepted
            print(
                "  \(file.padding(toLength: 32, withPad: " ", startingAt: 0)) \(pad(bytes.count, 7)) \(pad(counts.variants, 9)) \(pad(rejected, 9)) \(pad(counts.accepted, 9)) \(pad(counts.wrongCredential, 10)) \(pad(counts.unexpected + counts.other, 11))"
            )
        }
        print("  error kinds by region (all fixtures):")
        for region in Region.allCases {
            let codes = total.codes[region, default: [:]].sorted { $0.value > $1.value }
            print(
                "    \(region.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)) "
                    + codes.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            )
        }
        let rejectedPercent =
            total.variants == 0 ? 0 : 100.0 * Double(total.variants - total.accepted) / Double(total.variants)
        print(
            "  total \(total.variants) variants: rejected \(String(format: "%.4f", rejectedPercent)) %, accepted \(total.accepted), wrongCredential \(total.wrongCredential), unexpected kind \(total.unexpected), non-format errors \(total.other)"
        )
        printResult(
            suiteName,
            tally,
            [
                "fixtures": chosen.count, "variants": total.variants, "accepted": total.accepted,
                "wrong_credential": total.wrongCredential, "unexpected_kind": total.unexpected,
                "other_errors": total.other,
            ]
        )
        return tally
    }

    static func matrix(file: String, bytes pristine: [UInt8], credentials: Credentials, mode: Mode, tally: Tally)
        -> Counts
    {
        var counts = Counts()
        // The pristine file must open, fully.
        let headerLength: Int
        let indexLength: Int
        let keys: VaultKeys
        let slot: Int
        var deviceNonces: [Range<Int>] = []
        var ownDeviceNonces: [Range<Int>] = []
        do {
            headerLength = try VaultHeader.headerLength(preamble: pristine.prefix(16), fileLength: pristine.count)
            let snapshot = try VaultSnapshot.open(pristine, with: credentials)
            _ = try snapshot.items(includeSecrets: true)
            _ = try snapshot.verify()
            indexLength = snapshot.header.indexLength
            keys = snapshot.keys
            slot = snapshot.openedKeyslot
            let index = try snapshot.index
            for position in 0..<index.count where index.entry(at: position).protectionClass.isDeviceBound {
                let start = snapshot.recordsOffset + index.offsets[position]
                if keys.isOwnDeviceItem(index.entry(at: position).itemID) {
                    ownDeviceNonces.append(start..<start + 24)
                } else {
                    deviceNonces.append(start..<start + 24)
                }
            }
        } catch {
            tally.fail("tamper: pristine \(file) does not open: \(error)")
            return counts
        }
        let pristineHeader = Array(pristine[0..<headerLength])
        let large = pristine.count > 64 * 1024
        let slowKDF = file.contains("default_kdf")

        func region(_ offset: Int) -> Region {
            if offset < 16 { return .preamble }
            if offset < headerLength - 64 { return .fields }
            if offset < headerLength - 32 { return .checksum }
            if offset < headerLength { return .mac }
            if offset < headerLength + indexLength { return .index }
            if deviceNonces.contains(where: { $0.contains(offset) }) { return .deviceNonce }
            if ownDeviceNonces.contains(where: { $0.contains(offset) }) { return .ownDeviceNonce }
            return .records
        }

        func record(_ region: Region, _ what: @autoclosure () -> String, _ body: () throws -> Void) {
            counts.variants += 1
            do {
                try body()
                counts.accepted += 1
                tally.fail("tamper: \(file): \(what()) was accepted")
            } catch let error as VaultFormatError {
                counts.codes[region, default: [:]][error.code.name, default: 0] += 1
                if error.code == .wrongCredential && region != .checksumFixed {
                    counts.wrongCredential += 1
                    tally.fail("tamper: \(file): \(what()) reads as wrong credential")
                } else if !region.expected.contains(error.code.name) {
                    counts.unexpected += 1
                    tally.fail("tamper: \(file): \(what()) gave \(error.code) (expected \(region.expected.sorted()))")
                }
            } catch {
                counts.other += 1
                counts.codes[region, default: [:]]["other: \(type(of: error))", default: 0] += 1
                tally.fail("tamper: \(file): \(what()) threw a non-format error \(error)")
            }
        }

        /// Opens `bytes[0..<length]` and reads everything, as a reader with the right credentials would.
        func open(_ bytes: [UInt8], length: Int, headerIntact: Bool) throws {
            let source = Source(bytes: bytes, length: length)
            let snapshot: VaultSnapshot
            if headerIntact {
                snapshot = try VaultSnapshot.open(
                    headerBytes: pristineHeader,
                    fileLength: length,
                    source: source,
                    keys: keys,
                    openedKeyslot: slot
                )
            } else {
                let h = try VaultHeader.headerLength(preamble: bytes[0..<min(16, length)], fileLength: length)
                snapshot = try VaultSnapshot.open(
                    headerBytes: Array(bytes[0..<h]),
                    fileLength: length,
                    source: source,
                    with: credentials
                )
            }
            _ = try snapshot.items(includeSecrets: true)
            _ = try snapshot.verify()
        }

        // Bit flips.
        var bytes = pristine
        for offset in 0..<pristine.count {
            let where_ = region(offset)
            var bits: [Int] = Array(0..<8)
            if where_ == .mac && slowKDF {
                bits = [offset % 8]
            } else if large && (where_ == .records || where_ == .deviceNonce || where_ == .ownDeviceNonce) {
                guard offset % (mode == .full ? 97 : 997) == 0 else { continue }
                bits = [(offset / 97) % 8]
            } else if large && where_ == .index && mode == .quick {
                guard offset % 13 == 0 else { continue }
                bits = [offset % 8]
            }
            for bit in bits {
                bytes[offset] ^= UInt8(1 << bit)
                record(where_, "flip of bit \(bit) at \(offset) (\(where_))") {
                    try open(bytes, length: bytes.count, headerIntact: offset >= headerLength)
                }
                bytes[offset] ^= UInt8(1 << bit)
            }
        }
        // Flips with the header checksum recomputed (what an editor, not bit rot, would do): fields
        // and the version bytes of the preamble. Each runs the KDF, so v1_default_kdf is left out.
        var wrongCredentialOffsets: [Int] = []
        if !slowKDF {
            let checksumStart = headerLength - 64
            for offset in 8..<checksumStart where offset < 10 || offset >= 16 {
                for bit in mode == .full ? Array(0..<8) : [offset % 8] {
                    var edited = pristine
                    edited[offset] ^= UInt8(1 << bit)
                    edited.replaceSubrange(
                        checksumStart..<checksumStart + 32,
                        with: FuzzingEntryPoints.headerChecksum(edited[0..<checksumStart])
                    )
                    let before = counts.codes[.checksumFixed]?["wrongCredential"] ?? 0
                    record(.checksumFixed, "flip of bit \(bit) at \(offset) with the checksum fixed") {
                        try open(edited, length: edited.count, headerIntact: false)
                    }
                    if (counts.codes[.checksumFixed]?["wrongCredential"] ?? 0) > before,
                        wrongCredentialOffsets.last != offset
                    {
                        wrongCredentialOffsets.append(offset)
                    }
                }
            }
        }
        if ProcessInfo.processInfo.environment["TAMPER_VERBOSE"] != nil {
            print("    \(file): checksum-fixed flips read as wrongCredential at \(ranges(wrongCredentialOffsets))")
        }
        // Truncations.
        let step = large && mode == .quick ? 97 : 1
        for length in stride(from: 0, to: pristine.count, by: step) {
            record(.truncation, "truncation to \(length) bytes") {
                try open(bytes, length: length, headerIntact: length >= headerLength)
            }
        }
        return counts
    }

    /// `[1, 2, 3, 7]` as `1-3, 7`.
    static func ranges(_ offsets: [Int]) -> String {
        var parts: [String] = []
        var start: Int?
        var last = -2
        for offset in offsets + [Int.max] {
            if offset != last + 1 {
                if let s = start { parts.append(s == last ? "\(s)" : "\(s)-\(last)") }
                start = offset
            }
            last = offset
        }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }

    static func decodeHex(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        var chars = Array(text.utf8)[...]
        while chars.count >= 2 {
            out.append(UInt8(String(decoding: chars.prefix(2), as: UTF8.self), radix: 16) ?? 0)
            chars = chars.dropFirst(2)
        }
        return out
    }
}
