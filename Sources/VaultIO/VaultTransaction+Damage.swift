// vault: a write that meets a damaged record names it.

import VaultFormat

extension VaultTransaction {
    /// Runs `body`, which looks up `primaryKey`; when a record it decrypts is damaged, throws
    /// ``ItemDamage`` naming that record instead of a bare `recordCorrupt`, so that the caller
    /// can remove it by ID (Spec/library-semantics.md, L-DMG-1).
    func namingDamage<T>(for primaryKey: PrimaryKey, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as VaultFormatError where ItemDamage.isDamage(error) {
            throw damagedRecord(withTagOf: primaryKey) ?? error
        }
    }

    /// The first record whose lookup tag is `primaryKey`'s and whose attributes do not open.
    private func damagedRecord(withTagOf primaryKey: PrimaryKey) -> ItemDamage? {
        let tag = writer.keys.lookupTag(primaryKey)
        for entry in writer.entries where entry.tag == tag {
            guard let record = writer.record(for: entry.itemID) else { continue }
            do {
                _ = try RecordCodec.openAttributes(
                    record.bytes[...],
                    entry: record.entry,
                    vaultID: writer.header.vaultID,
                    keys: writer.keys
                )
            } catch  where ItemDamage.isDamage(error) {
                return ItemDamage(entry: record.entry, attributes: nil, error: error)
            } catch {
                continue
            }
        }
        return nil
    }
}
