// vault: the revocation attack of issue 9 §1, as a test helper.

import VaultFormat

/// An attacker who kept a copy of a vault and knows a credential that opened it then
/// (a password changed since, a recovery password removed since).
///
/// The old copy and the old credential yield the keys of that generation. Without a rekey
/// those are the keys of every later generation too (R-KS-5), so they authenticate the
/// current file's header, decrypt its index and open items written long after the change.
public enum OldCopyAttack {
    /// The secrets of the current file that the old copy and old credential read, as text,
    /// or `nil` when the old keys do not even authenticate the current header.
    ///
    /// - Throws: When the old copy does not open with the old credential (no attack to make).
    public static func secrets(current: [UInt8], oldCopy: [UInt8], oldCredentials: Credentials) throws -> [String]? {
        let old = try VaultSnapshot.open(oldCopy, with: oldCredentials)
        let head = try VaultHead.read(current).bytes
        guard
            let snapshot = try? VaultSnapshot.open(
                headerBytes: head,
                fileLength: current.count,
                source: InMemoryFile(current),
                keys: old.keys,
                openedKeyslot: old.openedKeyslot
            )
        else { return nil }
        return try snapshot.items(includeSecrets: true, skipUnavailable: true).map {
            String(decoding: $0.secret!.copyBytes(), as: UTF8.self)
        }
    }
}
