// vaulttool merge: merge other copies of a vault (git branches, sync conflict files) into it.

import FoundationEssentials
import Glibc
import VaultDelivery
import VaultIO

/// `vaulttool merge [--base <file>] [--output <file>] [--remove-merged] <vault> <other> ...`.
///
/// Spec: Spec/cli.md, "merge"; Spec/merge.md.
struct MergeCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge other copies of a vault into it.",
        discussion: """
            Merges each <other> copy into <vault>, one new generation each, written atomically.
            Items are matched by ID and deletions are kept. When both copies changed an item, the
            newer version keeps it and the other is kept as a conflict copy, a new item whose
            account ends in "(conflict NNNNNNNN)"; every conflict is listed on standard output.
            With --base (the common ancestor, as git has) the merge is three-way: an item changed
            in one copy only is taken without a conflict. Without it, the older of two different
            versions is kept as a conflict copy too. Use it for Syncthing's *.sync-conflict-* and
            Dropbox's "conflicted copy" files; --remove-merged deletes each once it is merged. The
            same credentials (or the agent's keys) open every file. See Spec/merge.md.
            """
    )
    @Option("--base", valueName: "file", help: "The common ancestor of <vault> and one <other>: merge three-way.")
    var base: String?
    @Option(
        "--output",
        valueName: "file",
        help: "Write the merge of <vault> and one <other> to a new file; both stay as they are."
    )
    var output: String?
    @Flag("--remove-merged", help: "Delete each <other> once it is merged.") var removeMerged: Bool
    @Option(
        "--keep-key",
        valueName: "side",
        help: "ours or theirs: the master key to keep when one copy was rekeyed.",
        completion: .values(["ours", "theirs"])
    )
    var keepKeyName: String?
    @Group(specs: CredentialOptions.forWriting) var credentialOptions: CredentialOptions
    @Argument("vault", help: "The vault to merge into (ours).") var path: String
    @RemainingArguments("other", help: "A copy of the same vault to merge in (theirs).") var others: [String]
    private(set) var keepKey: MergeSide?

    mutating func validate() throws {
        if let side = keepKeyName {
            guard let chosen = MergeSide(rawValue: side) else {
                throw UsageError("--keep-key takes 'ours' or 'theirs', not '\(side)'")
            }
            keepKey = chosen
        }
        if others.count > 1 && (base != nil || output != nil) {
            throw UsageError("--base and --output merge one <other> file, not \(others.count)")
        }
        if removeMerged && output != nil {
            throw UsageError("--remove-merged and --output cannot be combined: --output changes no input")
        }
        if others.contains(path) { throw UsageError("'\(path)' cannot be merged into itself") }
    }

    func run() throws {
        let opener = try VaultAccess.opener(path, credentialOptions)
        // The other files: with the agent's keys when they fit (copies share the master key),
        // else with the credentials, asked for at most once.
        var copies = VaultCopyOpener(opener, sources: credentialOptions.sources)
        func open(_ file: String) throws -> VaultSnapshot {
            try Progress.run("Unlocking \(file)") { try copies.open(file) }
        }
        if let output {
            let ours = try open(path)
            let theirs = try open(others[0])
            let ancestor = try base.map { try open($0) }
            let report = try MergeOutput.translating(path, others[0]) {
                try Vault.merge(
                    ours: ours,
                    theirs: theirs,
                    base: ancestor,
                    creating: output,
                    configuration: try VaultAccess.configuration(),
                    options: MergeOptions(masterKey: keepKey)
                )
            }
            MergeOutput.print(report, merged: others[0], into: output)
            return
        }
        let vault = try VaultAccess.vault(path, opener, acceptRollback: credentialOptions.acceptRollback)
        VaultAccess.warnAboutLocation(of: vault)
        let ancestor = try base.map { try open($0) }
        var rekeyed = false
        for other in others {
            let theirs = try open(other)
            let report = try MergeOutput.translating(path, other) {
                try Progress.run("Merging \(other)") {
                    try vault.merge(theirs, base: ancestor, options: MergeOptions(masterKey: keepKey))
                }
            }
            rekeyed = rekeyed || report.keysFrom == .theirs
            MergeOutput.print(report, merged: other, into: path)
            if removeMerged {
                do {
                    try FileManager.default.removeItem(atPath: other)
                } catch {
                    throw ToolError("'\(other)' was merged but cannot be removed", exitCode: .ioFailure)
                }
                Output.out("removed \(other)\n")
            }
        }
        if rekeyed { VaultAccess.refreshAgent(after: vault) }
    }
}

/// How merges are reported on standard output, and their errors turned into sentences.
enum MergeOutput {
    /// One line per conflict, then a summary line.
    static func print(
        _ report: MergeReport,
        merged other: String,
        into target: String,
        to write: (String) -> Void = Output.out
    ) {
        for conflict in report.conflicts { write(line(conflict)) }
        for id in report.droppedUnreadable { write("dropped: \(id) another device's item cannot be carried\n") }
        if !report.changedUnderRetiredKey.isEmpty {
            let count = report.changedUnderRetiredKey.count
            write(
                "warning: \(other) is sealed under the master key that the rekey of \(target) retired, and "
                    + "changed \(count) item\(count == 1 ? "" : "s") (applied; a recipient that rekey removed "
                    + "could have made them): review \(report.changedUnderRetiredKey.map(\.description).joined(separator: ", "))\n"
            )
        }
        if report.recipientChanges > 0 {
            write("recipients: \(report.recipientChanges) added from the other copy or removed since the ancestor\n")
        }
        let conflicts = report.conflicts.count
        write(
            "merged \(other) into \(target): \(report.added) added, \(report.updated) updated, "
                + "\(report.deleted) deleted, \(conflicts) conflict\(conflicts == 1 ? "" : "s"); "
                + "generation \(report.generation)\n"
        )
    }

    /// `conflict: <id> <kind> <service>/<account>: kept <side>[, other version kept as <copy>]`.
    static func line(_ conflict: MergeConflict) -> String {
        let kind =
            switch conflict.kind {
            case .bothChanged: "changed in both"
            case .changedAndDeleted: "changed and deleted"
            case .samePrimaryKey: "same service and account"
            case .unreadable: "another device's item"
            }
        var text = "conflict: \(conflict.itemID) \(kind)"
        if !conflict.service.isEmpty || !conflict.account.isEmpty {
            text += " \(TerminalText.escaped(conflict.service))/\(TerminalText.escaped(conflict.account))"
        }
        text += ": " + (conflict.winner.map { "kept \($0.rawValue)" } ?? "deleted")
        if let copy = conflict.copyID { text += ", other version kept as \(copy)" }
        return text + "\n"
    }

    /// Runs a merge, turning ``VaultMergeError`` into a sentence naming the files.
    static func translating<T>(
        _ target: String,
        _ other: String,
        keyHint: String = "pass --keep-key theirs to keep the other copy's new key, or --keep-key ours",
        _ body: () throws -> T
    ) throws -> T {
        do {
            return try body()
        } catch let error as VaultMergeError {
            switch error.code {
            case .differentVaults:
                throw ToolError("'\(other)' holds a different vault than '\(target)' (their vault IDs differ)")
            case .masterKeysDiffer:
                throw ToolError("cannot merge '\(other)' into '\(target)': \(error.reason); \(keyHint)")
            case .notDescendant:
                // R-MRG-17: an older copy put back is tampering for a script's purposes, as a
                // rollback is (exit 4, section 5).
                throw ToolError("cannot merge '\(other)' into '\(target)': \(error.reason)", exitCode: .damaged)
            case .masterKeyRequired:
                throw ToolError("a merge needs each file opened with a password or key file", exitCode: .usage)
            default:
                throw ToolError("cannot merge '\(other)' into '\(target)': \(error.reason)")
            }
        }
    }
}
