// vault: seeded property tests over whole vaults.

import Testing
import VaultTestSupport

@testable import VaultFormat

@Suite("Vault properties")
struct RoundTripPropertyTests {
    /// Scalars from several scripts, combining marks, emoji with joiners and a right-to-left script.
    private static let alphabet: [String] = [
        "a", "Z", "0", " ", "-", "é", "ß", "ж", "Ω", "中", "文", "ש", "ع", "e\u{301}", "🔑", "👩‍💻", "🇫🇷", "\u{0}",
    ]

    private static func text(_ rng: inout SplitMix64, _ range: ClosedRange<Int>) -> String {
        String((0..<Int.random(in: range, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined())
    }

    private static func randomItem(_ index: Int, _ rng: inout SplitMix64, _ random: SeededRandom) -> ItemDraft {
        let itemClass: ItemClass = Bool.random(using: &rng) ? .genericPassword : .internetPassword
        var a = ItemAttributes(service: text(&rng, 4...30), account: text(&rng, 4...30) + "#\(index)")
        if Bool.random(using: &rng) { a.label = text(&rng, 1...40) }
        if Bool.random(using: &rng) { a.comment = text(&rng, 1...200) }
        if Bool.random(using: &rng) { a.accessGroup = text(&rng, 1...10) }
        if Bool.random(using: &rng) { a.itemDescription = text(&rng, 1...10) }
        if Bool.random(using: &rng) { a.creator = UInt32.random(in: 1...UInt32.max, using: &rng) }
        if Bool.random(using: &rng) { a.type = UInt32.random(in: 1...UInt32.max, using: &rng) }
        if Bool.random(using: &rng) { a.generic = random.bytes(Int.random(in: 1...300, using: &rng)) }
        if Bool.random(using: &rng) { a.creationDate = Int64.random(in: Int64.min...Int64.max, using: &rng) | 1 }
        if Bool.random(using: &rng) { a.modificationDate = Int64.random(in: 1...Int64.max, using: &rng) }
        a.synchronizable = Bool.random(using: &rng)
        a.isInvisible = Bool.random(using: &rng)
        a.isNegative = Bool.random(using: &rng)
        if itemClass == .internetPassword {
            a.server = text(&rng, 4...40)
            if Bool.random(using: &rng) { a.protocol = "https" }
            if Bool.random(using: &rng) { a.authenticationType = text(&rng, 1...8) }
            if Bool.random(using: &rng) { a.port = UInt16.random(in: 1...UInt16.max, using: &rng) }
            if Bool.random(using: &rng) { a.path = "/" + text(&rng, 0...20) }
            if Bool.random(using: &rng) { a.securityDomain = text(&rng, 1...20) }
        }
        if Int.random(in: 0..<8, using: &rng) == 0 {
            a.preserved = [PreservedAttribute(tag: UInt8.random(in: 64...255, using: &rng), value: random.bytes(5))]
        }
        let secret = SecretBytes(bytes: random.bytes(Int.random(in: 0...5000, using: &rng)))
        return ItemDraft(
            id: ItemID(random: random),
            itemClass: itemClass,
            protectionClass: ProtectionClass.allCases.randomElement(using: &rng)!,
            attributes: a,
            secret: secret
        )
    }

    /// 200 seeded random items encode into a vault and decode back equal.
    @Test(arguments: ["alpha", "beta"])
    func randomItems_roundTripThroughAVault(seed: String) throws {
        var rng = SplitMix64(state: UInt64(seed.utf8.reduce(0) { $0 &* 31 &+ UInt64($1) }))
        let device = TestVault.deviceSecret(seed: "property device \(seed)")
        let vault = TestVault(seed: "property \(seed)", deviceSecret: device)
        let items = (0..<200).map { Self.randomItem($0, &rng, vault.random) }
        let file = try vault.file(items: items)

        let snapshot = try TestVault.open(file, device: device)
        #expect(snapshot.header.recordCount == 200)
        let decoded = try snapshot.items(includeSecrets: true)
        // Format 1.1 stores device-bound items under their device-tagged ID (R11-DEV-1), which
        // keeps the first 8 bytes of the draft's ID.
        let byID = Dictionary(uniqueKeysWithValues: decoded.map { (Array($0.entry.itemID.bytes.prefix(8)), $0) })
        #expect(byID.count == 200)
        for item in items {
            let found = try #require(byID[Array(item.id.bytes.prefix(8))])
            #expect(found.entry.itemID == item.id || item.protectionClass.isDeviceBound)
            #expect(found.attributes == item.attributes)
            #expect(found.secret == item.secret)
            #expect(found.entry.itemClass == item.itemClass && found.entry.protectionClass == item.protectionClass)
        }
        // Lookup by primary key finds every item (R-IDX-6).
        for item in items.prefix(50) {
            let position = try #require(try snapshot.position(of: item.primaryKey))
            #expect(try snapshot.index.entries[position].itemID.bytes.prefix(8) == item.id.bytes.prefix(8))
        }
        #expect(try snapshot.verify() == (200, 0))

        // No service, account or secret appears in the file bytes.
        let windows = Set(
            (0...(file.count - 8)).map { start in
                file[start..<(start + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            }
        )
        func appears(_ needle: [UInt8]) -> Bool {
            guard needle.count >= 8 else { return false }
            let head = needle.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return windows.contains(head) && file.contains(subsequence: needle)
        }
        for item in items {
            #expect(!appears(Array(item.attributes.service.utf8)))
            #expect(!appears(Array(item.attributes.account.utf8)))
            if item.itemClass == .internetPassword { #expect(!appears(Array(item.attributes.server.utf8))) }
            #expect(!appears(item.secret.copyBytes()))
        }
    }

    /// Every byte of a file is covered by the checksum, the MAC or an AEAD tag: flipping any
    /// bit makes opening or a whole-vault check fail with a format error, never a crash.
    @Test func anyFlippedBit_isDetected() throws {
        let vault = TestVault(seed: "every byte")
        let file = try vault.file(items: [vault.draft(service: "a"), vault.draft(service: "b", protection: .always)])
        var rng = SplitMix64(state: 7)
        for offset in file.indices {
            var damaged = file
            damaged[offset] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
            #expect(throws: VaultFormatError.self, "offset \(offset)") {
                _ = try TestVault.open(damaged).verify()
            }
        }
    }
}
