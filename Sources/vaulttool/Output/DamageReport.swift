// vaulttool: naming damaged items, on one line or in JSON, never with a secret.

import VaultDelivery
import VaultIO

/// How commands name a damaged item: by ID always, by service (or server) and account when its
/// attributes still authenticate.
enum DamageReport {
    /// A damaged item in JSON (`list --json --salvage`, `inspect --json --items`).
    struct Record: Encodable {
        var id: String
        var `class`: String
        var service: String?
        var server: String?
        var account: String?
        var reason: String
    }

    /// `item 3f2a… (generic "github.com"/"ci-bot"): an item's secret failed authentication`.
    ///
    /// Attribute values are quoted with control characters escaped, so that a name cannot
    /// move the cursor or inject a line.
    static func line(_ damage: ItemDamage) -> String {
        var text = "item \(damage.entry.itemID)"
        if let attributes = damage.attributes {
            let internet = damage.entry.itemClass == .internetPassword
            let place = internet ? attributes.server : attributes.service
            text +=
                " (\(internet ? "internet" : "generic") \(TerminalText.quoted(place))/\(TerminalText.quoted(attributes.account)))"
        }
        return text + ": " + damage.error.reason
    }

    static func record(_ damage: ItemDamage) -> Record {
        let internet = damage.entry.itemClass == .internetPassword
        return Record(
            id: damage.entry.itemID.description,
            class: internet ? "internetPassword" : "genericPassword",
            service: internet ? nil : damage.attributes?.service,
            server: internet ? damage.attributes?.server : nil,
            account: damage.attributes?.account,
            reason: damage.error.reason
        )
    }

    /// Ends a salvaging command that met damage: one `Damaged: …` line per item on stderr, then
    /// ``failure(_:of:)``; nothing when `damaged` is empty.
    static func end(_ damaged: [ItemDamage], of snapshot: VaultSnapshot) throws {
        guard !damaged.isEmpty else { return }
        for damage in damaged { Output.err("Damaged: \(line(damage))\n") }
        throw failure(damaged, of: try snapshot.index.count)
    }

    /// The error that ends a salvaging command that met damage (exit 4).
    static func failure(_ damaged: [ItemDamage], of total: Int) -> ToolError {
        let count = damaged.count
        return ToolError(
            "the vault is damaged or was tampered with: \(Output.count(count)) of \(Output.count(total)) item\(total == 1 ? "" : "s") "
                + "\(count == 1 ? "is" : "are") damaged; "
                + "remove \(count == 1 ? "it" : "them") with 'vaulttool rm --id <id>' after "
                + "'vaulttool backup' (see 'vaulttool help backup')",
            exitCode: .damaged
        )
    }
}
