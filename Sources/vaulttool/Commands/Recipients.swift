// vaulttool recipients: list, add and remove the X25519 recipients of a vault (format 1.2).

import VaultDelivery
import VaultIO

/// `vaulttool recipients ls|add|rm [options] <vault>`.
struct Recipients: Command {
    static let configuration = CommandConfiguration(
        commandName: "recipients",
        abstract: "List, add or remove the public keys that open a vault.",
        discussion: """
            A recipient opens the vault with its identity file (--identity), made by 'vaulttool keygen'.
            Recipients need vault format 1.2: upgrade a vault with 'vaulttool migrate --to 1.2' first.
            Their public keys and names are stored encrypted, so every action needs a credential.
            'ls' prints one line per recipient: its key and name. 'add' adds --recipient <key> under
            --name. 'rm' removes the recipient given by --recipient or --name and then replaces the
            master key (a rekey, as 'vaulttool rekey'), so that the removed identity does not open
            what is written afterwards, even with an old copy of the file: every other recipient is
            kept, and every keyslot needs its credential as for 'rekey'. 'add --access-group <group>'
            adds a recipient that reads only the items of that access group (a CI runner for
            'deploy' reads nothing of 'billing'); it needs vault format 2.0 ('vaulttool migrate
            --to 2.0'), and 'ls' prints the group after the name.
            """
    )
    @Option("--recipient", valueName: "key", help: "A public key, VAULT-RECIPIENT-1:...") var keyText: String?
    @Option("--name", valueName: "name", help: "The recipient's name (up to 64 bytes).") var name: String?
    /// `--access-group`: the one access group an added recipient may read (format 2.0).
    @Option("--access-group", valueName: "group", help: "add: limit the recipient to this access group (format 2.0).")
    var accessGroup: String?
    @Flag("--json", help: "ls: print machine-readable output.") var json: Bool
    @Flag("--unreadable", help: "rm: remove every recipient whose key and name do not decrypt.") var unreadable: Bool
    @Group var flags: RekeyFlags
    @Group(specs: CredentialOptions.forWriting) var credentialOptions: CredentialOptions
    @Argument("action", help: "ls, add or rm.") var action: String
    @Argument(.vault) var path: String
    private(set) var key: RecipientKey?

    mutating func validate() throws {
        if accessGroup != nil && action != "add" {
            throw UsageError("'--access-group' applies only to 'add'")
        }
        key = try keyText.map { text in
            do {
                return try RecipientKey(text: text)
            } catch let error as VaultFormatError {
                throw UsageError("'--recipient' \(error.reason)")
            }
        }
        switch action {
        case "ls":
            if key != nil || name != nil { throw UsageError("'ls' takes no '--recipient' or '--name'") }
        case "add":
            guard key != nil, name != nil else {
                throw UsageError("'add' needs '--recipient <key>' and '--name <name>'")
            }
        case "rm":
            guard [key != nil, name != nil, unreadable].filter({ $0 }).count == 1 else {
                throw UsageError("'rm' needs one of '--recipient', '--name' and '--unreadable'")
            }
        default:
            throw UsageError("The action is 'ls', 'add' or 'rm', not '\(action)'")
        }
        if action != "rm" && unreadable { throw UsageError("'--unreadable' applies only to 'rm'") }
        if action != "rm" && flags.isGiven {
            throw UsageError("'--keep-password-file', '--drop-keyslots' and '--drop-foreign' apply only to 'rm'")
        }
    }

    private struct Listing: Encodable {
        struct Entry: Encodable {
            var key: String
            var name: String
            /// The access group a limited recipient reads (format 2.0); absent for a full one.
            var accessGroup: String?
        }
        var vault: String
        var recipients: [Entry]
    }

    func run() throws {
        let credentials = try credentialOptions.credentials()
        let vault = try VaultAccess.vault(
            path,
            .credentials(credentials),
            acceptRollback: credentialOptions.acceptRollback
        )
        switch action {
        case "ls":
            let entries = try vault.read { snapshot in
                RecipientEntry.merging(
                    try Self.readable(snapshot.recipients(), vault.path),
                    groups: try snapshot.recipientAccessGroups()
                )
            }
            for entry in entries where entry.stanzaCount > 1 {
                let key = entry.recipient.key
                Output.err(
                    "warning: recipient \(key) has \(entry.stanzaCount) stanzas in \(path); "
                        + "'vaulttool recipients rm --recipient \(key)' removes them all, "
                        + "and a rekey writes one\n"
                )
            }
            if json {
                let listed = entries.map {
                    Listing.Entry(
                        key: $0.recipient.key.description,
                        name: $0.recipient.name,
                        accessGroup: $0.accessGroup
                    )
                }
                Output.out(try Output.json(Listing(vault: vault.path, recipients: listed)))
            } else if entries.isEmpty {
                Output.out("No recipients.\n")
            } else {
                for entry in entries {
                    let limit = entry.accessGroup.map { "  (access group \(TerminalText.escaped($0)) only)" } ?? ""
                    Output.out("\(entry.recipient.key)  \(TerminalText.escaped(entry.recipient.name))\(limit)\n")
                }
            }
        case "add":
            try VaultAccess.write(vault) { txn in
                if let accessGroup {
                    guard txn.formatVersion.major >= 2 else {
                        throw ToolError(
                            "a recipient limited to one access group needs vault format 2.0 or 3 and \(path) is "
                                + "\(txn.formatVersion.major).\(txn.formatVersion.minor): upgrade it first with "
                                + "'vaulttool migrate --to 3 \(path)' (no 1.x vaulttool opens it afterwards)",
                            exitCode: .unsupported
                        )
                    }
                    try txn.addRecipient(key!, name: name!, limitedTo: accessGroup)
                    return
                }
                guard txn.formatVersion.major >= 2 || txn.formatVersion.minor >= 2 else {
                    throw ToolError(
                        "recipients need vault format 1.2 and \(path) is \(txn.formatVersion.major).\(txn.formatVersion.minor): "
                            + "upgrade it first with 'vaulttool migrate --to 1.2 \(path)' "
                            + "(tools older than format 1.2 then open it read-only)",
                        exitCode: .unsupported
                    )
                }
                try txn.addRecipient(key!, name: name!)
            }
            let limit = accessGroup.map { " (access group \(TerminalText.escaped($0)) only)" } ?? ""
            Output.out("Added recipient \(TerminalText.escaped(name!))\(limit) to \(path): \(key!)\n")
        default:
            let options = try flags.options(current: credentials, tpm2: credentialOptions.tpm2Unlock)
            if unreadable {
                let (count, report) = try VaultAccess.write(vault) { txn in
                    try txn.removeUnreadableRecipients(rekey: options)
                }
                VaultAccess.refreshAgent(after: vault)
                Output.out(
                    count == 0
                        ? "No unreadable recipient in \(path); nothing changed.\n"
                        : "Removed \(Output.count(count)) unreadable recipient\(count == 1 ? "" : "s") from \(path); "
                            + "\(report.map(RekeyFlags.summary) ?? "").\n"
                )
                return
            }
            var removed: Recipient?
            let report = try VaultAccess.write(vault) { txn in
                let matches = RecipientEntry.matching(try Self.readable(txn.recipients(), path), key: key, name: name)
                guard matches.count == 1, let match = matches.first else {
                    throw ToolError(
                        matches.isEmpty
                            ? "no recipient of \(path) matches; see 'vaulttool recipients ls'"
                            : "\(matches.count) recipients are named so; remove one by --recipient <key>",
                        exitCode: .notFound
                    )
                }
                removed = match
                return try txn.removeRecipient(match.key, rekey: options)
            }
            VaultAccess.refreshAgent(after: vault)
            let summary = report.map(RekeyFlags.summary) ?? ""
            Output.out("Removed recipient \(TerminalText.escaped(removed!.name)) from \(path); \(summary).\n")
        }
    }

    /// `recipients`, or an error naming the way out when a stanza does not read: such a stanza
    /// (damaged, or written on purpose by a key holder) blocks every rekey. `verify` asks too.
    static func readable(_ recipients: @autoclosure () throws -> [Recipient], _ path: String) throws
        -> [Recipient]
    {
        do {
            return try recipients()
        } catch let error as VaultFormatError where error.code == .headerAuthentication || error.code == .structure {
            throw ToolError(
                "a recipient of \(path) cannot be read (\(error.reason)); "
                    + "'vaulttool recipients rm --unreadable \(path)' removes such recipients and rekeys",
                exitCode: .damaged
            )
        }
    }
}
