// vault-bench: the deterministic items every store is filled with.

import VaultFormat
import _VaultHooks

/// The benchmark's items: item `i` has a 20-byte service, a 16-byte account and a 32-byte secret.
///
/// `scripts/bench-peers/dataset.py` builds the same strings for the peers; keep the two in step.
enum Dataset {
    /// Creation and modification date of every item (2026-01-01T00:00:00Z), so files are reproducible in size.
    static let date: Int64 = 1_767_225_600_000

    /// `svc.example-00000042`: 20 bytes.
    static func service(_ i: Int) -> String { "svc.example-" + digits(i, 8) }
    /// `account-00000042`: 16 bytes.
    static func account(_ i: Int) -> String { "account-" + digits(i, 8) }
    /// `secret-0000…0042`: 32 bytes.
    static func secret(_ i: Int) -> [UInt8] { Array(("secret-" + digits(i, 25)).utf8) }
    /// The replacement secret written by set-one in run `run`: 32 bytes.
    static func newSecret(_ run: Int) -> [UInt8] { Array(("newsec-" + digits(run, 25)).utf8) }

    /// The item get-one reads: the middle one.
    static func getIndex(_ n: Int) -> Int { n / 2 }
    /// The item set-one replaces.
    static func setIndex(_ n: Int) -> Int { n / 3 }

    /// The primary key of item `i`.
    static func primaryKey(_ i: Int) -> PrimaryKey {
        PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes(service: service(i), account: account(i)))
    }

    /// The attributes `vaulttool set` would give item `i`.
    static func attributes(_ i: Int) -> ItemAttributes {
        var attributes = ItemAttributes(service: service(i), account: account(i))
        attributes.creationDate = date
        attributes.modificationDate = date
        return attributes
    }

    /// Drafts of items `0..<n`, with item IDs from a seeded generator.
    static func drafts(_ n: Int) -> [ItemDraft] {
        let random = SeededSource(seed: "vault-bench")
        return (0..<n).map { i in
            ItemDraft(id: ItemID(random: random), attributes: attributes(i), secret: SecretBytes(bytes: secret(i)))
        }
    }

    private static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
