// vault: recipients as a person sees them: the stanzas of one key are one recipient (R12-RCP-7).

public import VaultFormat

/// One recipient of a vault: its key and name, the access group it is limited to, and how many
/// stanzas the header holds for its key.
///
/// A recipient is its key (R12-RCP-7): a second stanza of a key (written by an older tool, or
/// by hand) is not a second recipient, and the broadest access a key's stanzas grant is what
/// it has.
///
/// ```swift
/// let entries = try vault.read { RecipientEntry.merging(try $0.recipients(), groups: try $0.recipientAccessGroups()) }
/// ```
///
/// Spec: Spec/format-v1.2.md (R12-RCP-7); Spec/format-v2.md (limited recipients).
public struct RecipientEntry: Sendable {
    /// The key and the name of its first stanza.
    public let recipient: Recipient
    /// The one access group the recipient may read; `nil` for a full recipient.
    public internal(set) var accessGroup: String?
    /// How many stanzas the header holds for this key (more than 1 deserves a warning).
    public internal(set) var stanzaCount: Int

    /// The recipients of `stanzas`, in order of their first stanza, each key once; `groups` are
    /// the stanzas' access groups (``VaultSnapshot/recipientAccessGroups()``), in the same order.
    public static func merging(_ stanzas: [Recipient], groups: [String?]) -> [RecipientEntry] {
        var entries: [RecipientEntry] = []
        for (recipient, group) in zip(stanzas, groups) {
            if let index = entries.firstIndex(where: { $0.recipient.key == recipient.key }) {
                entries[index].stanzaCount += 1
                if group == nil { entries[index].accessGroup = nil }
            } else {
                entries.append(RecipientEntry(recipient: recipient, accessGroup: group, stanzaCount: 1))
            }
        }
        return entries
    }

    /// The recipients among `stanzas` that `key` names, else those named `name`: each key once.
    public static func matching(_ stanzas: [Recipient], key: RecipientKey?, name: String?) -> [Recipient] {
        var matches: [Recipient] = []
        for recipient in stanzas where key.map({ recipient.key == $0 }) ?? (recipient.name == name) {
            if !matches.contains(where: { $0.key == recipient.key }) { matches.append(recipient) }
        }
        return matches
    }
}
