// vault: a write that meets a damaged record names it.

import VaultFormat

extension VaultTransaction {
    /// The error to throw for `error`, met while looking up `primaryKey`: when a record it
    /// decrypted is damaged, ``ItemDamage`` naming that record instead of a bare
    /// `recordCorrupt`, so that the caller can remove it by ID (Spec/library-semantics.md, L-DMG-1).
    ///
    /// It takes the error rather than wrapping the lookup in a closure: a closure that mutates
    /// `writer` inside a method that reads `self` would keep a second reference to the writer's
    /// storage, and every `put` would copy it (quadratic time for a large write).
    func namingDamage(_ error: any Error, for primaryKey: PrimaryKey) -> any Error {
        guard let formatError = error as? VaultFormatError, ItemDamage.isDamage(formatError) else { return error }
        return damagedRecord(withTagOf: primaryKey) ?? formatError
    }

    /// The first record whose lookup tag is `primaryKey`'s and whose attributes do not open.
    private func damagedRecord(withTagOf primaryKey: PrimaryKey) -> ItemDamage? {
        let tag = writer.keys.lookupTag(primaryKey)
        for entry in (try? writer.entries) ?? [] where entry.tag == tag {
            guard let record = try? writer.record(for: entry.itemID) else { continue }
            do {
                _ = try RecordCodec.openCheckedAttributes(
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
