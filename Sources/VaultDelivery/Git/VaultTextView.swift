// vault: the stable, item-level text view of a vault that `git-diff` prints for git.

import VaultFormat
import VaultIO

/// The text `vaulttool git-diff` prints: header facts, then one block per item sorted by item ID,
/// then the deletion records. Never a secret: a secret is shown as its keyed fingerprint.
///
/// ```swift
/// print(VaultTextView.opened(snapshot, describe: { "\($0)" }), terminator: "")
/// ```
///
/// Spec: Spec/cli.md, "git-diff" (R-GD-1, R-GD-3, R-GD-4).
public enum VaultTextView {
    /// Why the items are not shown.
    public struct Locked: Error {
        /// The sentence after `items locked: `.
        public var reason: String

        /// Items locked for `reason`.
        public init(reason: String) { self.reason = reason }
    }

    /// The header facts, which need no key (and are unauthenticated without one).
    ///
    /// A format 1.2 header adds `recipients: <count>`, and `recipients` (read with the master
    /// key) one line per recipient, so that a commit granting someone access shows in the diff.
    static func header(
        _ header: VaultHeader,
        authenticated: Bool,
        byRecipient: Bool = false,
        recipients: Result<[Recipient], VaultFormatError>? = nil,
        counts: (items: Int, deletions: Int)? = nil,
        describe: (any Error) -> String = { "\($0)" }
    ) -> String {
        var out = "vault \(header.major).\(header.minor)\n"
        out += "vault-id: \(Hex.encode(header.vaultID))\n"
        out += "created: \(RFC3339.format(header.created, fractionalSeconds: false))\n"
        out += "generation: \(header.generation)\n"
        out += "header: \(authenticated ? "authenticated" : "not authenticated (no key)")"
        // A stanza is made from a public key: a MAC checked with the key a stanza gave proves only
        // that the writer knew the recipient key (Spec/threat-model.md 3.12).
        out += byRecipient ? " by a recipient identity (anyone with its public key can write such a file)\n" : "\n"
        out += "keyslots: \(header.keyslots.count)\n"
        for (index, slot) in header.keyslots.enumerated() {
            var line = "  #\(index) \(slot.kind) \(slot.scope)"
            if let kdf = slot.kdf { line += " argon2id m=\(kdf.memoryKiB)KiB t=\(kdf.iterations) p=\(kdf.lanes)" }
            out += line + "\n"
        }
        if header.followsVersion12Rules {
            out += "recipients: \(header.recipientCount)\n"
            switch recipients {
            case .success(let list)?: for r in list { out += "  \(r.key) \(TerminalText.quoted(r.name))\n" }
            case .failure(let error)?: out += "  damaged: \(describe(error))\n"
            case nil: break
            }
        }
        // Format 3 keeps the counts in the encrypted root: they show with a key only.
        if let counts = counts ?? (header.isVersion3 ? nil : (header.recordCount, header.deletionCount)) {
            out += "items: \(counts.items)\n"
            out += "deletions: \(counts.deletions)\n"
        }
        return out
    }

    /// The whole view without keys: the header facts and why the items are locked.
    public static func locked(_ header: VaultHeader, _ locked: Locked) -> String {
        Self.header(header, authenticated: false) + "\nitems locked: \(locked.reason)\n"
    }

    /// The whole view of an opened snapshot: every item sorted by ID, then the deletion records.
    ///
    /// - Parameters:
    ///   - opened: The newest generation, opened with a credential or the agent's keys.
    ///   - describe: Words the error of a damaged item or recipient stanza.
    public static func opened(_ opened: VaultSnapshot, describe: (any Error) -> String) -> String {
        // Every record is read: one read of the records section, not one per record.
        let snapshot = (try? opened.withRecordsLoaded()) ?? opened
        // Who else can open the vault needs the master key to read (R12-RCP-4).
        let recipients: Result<[Recipient], VaultFormatError>? =
            !snapshot.keys.holdsMasterKey || snapshot.header.recipientCount == 0
            ? nil : Result { () throws(VaultFormatError) in try snapshot.recipients() }
        var out = header(
            snapshot.header,
            authenticated: true,
            byRecipient: snapshot.openedByRecipient,
            recipients: recipients,
            counts: (snapshot.itemCount, snapshot.deletionCount),
            describe: describe
        )
        let index: VaultIndex
        do {
            index = try snapshot.index
        } catch {
            return out + "\nindex: damaged (\(error))\n"
        }
        let ids = (0..<index.count).map { index.entry(at: $0).itemID }
        let order = ids.indices.sorted { ids[$0] < ids[$1] }
        let fingerprinter = SecretFingerprinter(keys: snapshot.keys, vaultID: snapshot.header.vaultID)
        for position in order {
            out += "\n" + item(at: position, in: snapshot, index: index, fingerprinter, describe)
        }
        let deletions = index.deletions.sorted { $0.itemID < $1.itemID }
        if !deletions.isEmpty { out += "\n" }
        for deletion in deletions {
            out += "deleted \(deletion.itemID) at \(RFC3339.itemDate(deletion.deletedAt) ?? "unknown time")\n"
        }
        return out
    }

    /// One item's block; an item that cannot be read here says why, and a damaged one says so.
    static func item(
        at position: Int,
        in snapshot: VaultSnapshot,
        index: VaultIndex,
        _ fingerprinter: SecretFingerprinter,
        _ describe: (any Error) -> String
    ) -> String {
        let entry = index.entry(at: position)
        var out = "item \(entry.itemID)\n"
        out += "  class: \(entry.itemClass)\n"
        out += "  accessibility: \(entry.protectionClass)\n"
        out += "  version: \(entry.version)\n"
        let attributes: ItemAttributes
        do {
            attributes = try snapshot.attributes(at: position)
        } catch let error as VaultFormatError where !ItemDamage.isDamage(error) {
            return out + "  unreadable here: \(unreadableReason(entry, error, snapshot.keys))\n"
        } catch {
            return out + "  damaged: \(describe(error))\n"
        }
        out += fields(attributes, itemClass: entry.itemClass)
        do {
            let secret = try snapshot.secret(at: position)
            let fingerprint = try fingerprinter.fingerprint(
                of: secret,
                itemID: entry.itemID,
                protection: entry.protectionClass,
                domain: entry.domain
            )
            out += "  secret: fingerprint \(Hex.encode(fingerprint))\n"
        } catch {
            out += "  secret: damaged (\(describe(error)))\n"
        }
        return out
    }

    /// The attribute lines: the fields that name the item always, the others when set.
    static func fields(_ a: ItemAttributes, itemClass: ItemClass) -> String {
        var out = ""
        func text(_ name: String, _ value: String, always: Bool = false) {
            if always || !value.isEmpty { out += "  \(name): \(TerminalText.quoted(value))\n" }
        }
        if itemClass == .internetPassword {
            text("server", a.server, always: true)
            text("protocol", a.protocol, always: true)
            out += "  port: \(a.port)\n"
            text("path", a.path, always: true)
            text("security-domain", a.securityDomain)
            text("authentication-type", a.authenticationType)
        } else {
            text("service", a.service, always: true)
        }
        text("account", a.account, always: true)
        text("access-group", a.accessGroup, always: true)
        text("label", a.label, always: true)
        text("comment", a.comment)
        text("description", a.itemDescription)
        if a.creator != 0 { out += "  creator: \(a.creator)\n" }
        if a.type != 0 { out += "  type: \(a.type)\n" }
        if !a.generic.isEmpty { out += "  generic: \(Hex.encode(a.generic))\n" }
        if a.synchronizable { out += "  synchronizable: true\n" }
        if a.isInvisible { out += "  invisible: true\n" }
        if a.isNegative { out += "  negative: true\n" }
        if !a.preserved.isEmpty { out += "  preserved-attributes: \(a.preserved.count)\n" }
        out += "  created: \(RFC3339.itemDate(a.creationDate) ?? "none")\n"
        out += "  modified: \(RFC3339.itemDate(a.modificationDate) ?? "none")\n"
        return out
    }

    /// Why the keys held cannot read an item (another device's, a device secret missing, a class key missing).
    static func unreadableReason(_ entry: IndexEntry, _ error: VaultFormatError, _ keys: VaultKeys) -> String {
        if entry.protectionClass.isDeviceBound {
            return keys.deviceSecret == nil
                ? "\(entry.protectionClass) needs this machine's device secret"
                : "another device's item"
        }
        return "the credential does not hold the key of class \(entry.protectionClass)"
    }
}
