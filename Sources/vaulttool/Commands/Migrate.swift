// vaulttool migrate: bring a vault to the current format and KDF cost, or import into it.

import FoundationEssentials
import Glibc
import VaultIO

/// `vaulttool migrate --password-file <file> [--dry-run] <vault>`, or with `--from <format> <file> <vault>`.
struct Migrate: Command {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Upgrade a vault's format and key derivation, or import another store into it.",
        discussion: """
            Rewrites the vault in place and atomically: a backup is written next to it first and
            removed once the new file verifies. A format 1.0 vault is upgraded to 1.1: this
            device's ThisDeviceOnly items move to device-tagged IDs (give the device secret and the
            password). Password keyslots below the target cost (the interactive preset unless --kdf
            options say otherwise) are raised to it. '--to 1.2' upgrades to format 1.2, which can hold
            recipients (older vaulttools then open the vault read-only). '--to 2.0' upgrades to format
            2.0, which can hold recipients limited to one access group ('vaulttool recipients add
            --access-group'); no 1.x vaulttool opens it afterwards. '--to 3' upgrades any earlier format
            to format 3, the format of new vaults (commits that append what changed, item histories that
            merges read, per-scope integrity); only vaulttools that know format 3 open it afterwards.
            A vault in a newer format than this vaulttool
            is refused (no downgrade). With --from and a source file, imports instead (see
            'vaulttool import').
            """
    )
    @Flag("--keep-backup", help: "Keep the backup after a successful migration.") var keepBackup: Bool
    @Option(
        "--to",
        valueName: "format",
        help: "The format to reach: 1.1 (default for 1.x), 1.2 (recipients), 2.0 (access-group recipients) or 3."
    )
    var targetName: String?
    @Group var importOptions: ImportRunner.Options
    @Group var kdfOptions: KDFOptions
    @Group(specs: CredentialOptions.forWriting) var credentialOptions: CredentialOptions
    @OptionalArgument("source", help: "With --from: the export to import.") var source: String?
    @Argument(.vault) var path: String

    /// `--to`: the version to reach (formats 1.2 and 2.0 only by this explicit choice, R12-MIG-1, R2-MIG-1).
    private(set) var targetVersion: (major: UInt16, minor: UInt16)?
    private(set) var runner: ImportRunner?
    var dryRun: Bool { importOptions.dryRun }
    var json: Bool { importOptions.json }

    mutating func validate() throws {
        switch targetName {
        case nil: targetVersion = nil
        case "1.1": targetVersion = (1, 1)
        case "1.2": targetVersion = (1, 2)
        case "2.0": targetVersion = (2, 0)
        case "3", "3.0": targetVersion = (3, 0)
        case let other?: throw UsageError("'--to' is 1.1, 1.2, 2.0 or 3, not '\(other)'")
        }
        if let source {
            runner = try ImportRunner(importOptions, source: source, vault: path)
            if keepBackup { throw UsageError("'--keep-backup' does not apply to imports") }
        } else {
            if importOptions.formatName != nil { throw UsageError("Missing expected argument '<source>'") }
            if importOptions.importOnlyGiven {
                throw UsageError(
                    "'--replace', '--skip-duplicates', '--create' and '--accessibility' apply only to imports ('--from')"
                )
            }
        }
    }

    /// The migration plan and its outcome; its JSON form is documented in Spec/cli.md.
    struct Plan: Encodable {
        struct SlotChange: Encodable {
            var index: Int
            var kind: String
            var from: String
            var to: String
        }
        var vault: String
        var fromFormat: String
        var toFormat: String
        var keyslots: [SlotChange] = []
        var unchangedKeyslots: [String] = []
        var dryRun: Bool
        var migrated = false
        var backup: String?
        /// Format 1.1: this device's device-bound items moved to device-tagged IDs.
        var retaggedItems = 0
        /// Device-bound items that may be this device's but could not be re-tagged (class key not held).
        var pendingDeviceItems = 0

        var isEmpty: Bool { fromFormat == toFormat && keyslots.isEmpty }
    }

    func run() throws {
        if let runner { return try runner.run(credentials: credentialOptions) }
        let header = try VaultFileReader(path: path).header()
        let from = "\(header.major).\(header.minor)"
        let version = targetVersion ?? header.defaultMigrationTarget
        let to = "\(version.major).\(version.minor)"
        // R-HDR-3: a newer minor is read-only here; rewriting it would drop what it added.
        if !header.isWritable {
            throw ToolError(
                "vault format \(from) is newer than this vaulttool (\(to)); migrate never downgrades: install a newer vaulttool",
                exitCode: .unsupported
            )
        }
        if let targetVersion, targetVersion < (header.major, header.minor) {
            throw ToolError("vault \(path) is already format \(from); migrate never downgrades", exitCode: .unsupported)
        }
        let target = kdfOptions.isGiven ? try kdfOptions.resolve() : KDFParameters.default
        let credentials = try credentialOptions.credentials()
        // One key derivation checks the credential; each raised keyslot costs one more (its new key).
        let session = try VaultAccess.session(
            path,
            credentials: credentials,
            acceptRollback: credentialOptions.acceptRollback
        )
        let options = MigrationOptions(
            kdf: kdfOptions.isGiven ? .exactly(target) : .raise(toAtLeast: target),
            dryRun: dryRun,
            keepBackup: keepBackup,
            formatVersion: targetVersion.map { FormatVersion(major: $0.major, minor: $0.minor) }
        )
        if !dryRun { VaultAccess.warnAboutLocation(of: session.vault) }
        let report: MigrationReport
        do {
            report = try Progress.run("Migrating \(session.vault.path)") {
                try session.migrate(options, credentials: credentials)
            }
        } catch let error as VaultFormatError where error.reason.hasSuffix("the original was put back") {
            throw ToolError(error.reason, exitCode: .damaged)
        }
        var plan = Plan(vault: session.vault.path, fromFormat: from, toFormat: to, dryRun: dryRun)
        plan.keyslots = report.plan.keyslotChanges.map { change in
            let to = KDFOptions.describe(change.to)
            return .init(
                index: change.index,
                kind: change.kind.description,
                from: KDFOptions.describe(change.from),
                to: change.normalizesPassword ? to + " (NFC password)" : to
            )
        }
        plan.unchangedKeyslots = report.plan.skippedKeyslots.map {
            "#\($0.index) \($0.kind): its credential was not given"
        }
        plan.migrated = report.migrated
        plan.backup = report.backup
        plan.retaggedItems = report.retaggedItems
        plan.pendingDeviceItems = report.pendingDeviceItems
        Output.out(json ? try Output.json(plan) : Self.text(plan))
    }

    static func text(_ plan: Plan) -> String {
        var out = "Vault:    \(plan.vault)\n"
        out +=
            "Format:   \(plan.fromFormat == plan.toFormat ? "vault \(plan.fromFormat) (current)" : "vault \(plan.fromFormat) -> \(plan.toFormat)")\n"
        if plan.keyslots.isEmpty { out += "Keyslots: key derivation is current\n" }
        for change in plan.keyslots {
            out += "Keyslot:  #\(change.index) \(change.kind): \(change.from) -> \(change.to)\n"
        }
        for note in plan.unchangedKeyslots { out += "Skipped:  keyslot \(note)\n" }
        if plan.retaggedItems > 0 {
            out += "Device:   \(Output.count(plan.retaggedItems)) ThisDeviceOnly items moved to device-tagged IDs\n"
        }
        if plan.pendingDeviceItems > 0 {
            out +=
                "Warning:  \(Output.count(plan.pendingDeviceItems)) ThisDeviceOnly items could not be re-tagged without the password; run migrate again with it\n"
        }
        if plan.isEmpty && !plan.migrated {
            out += "Nothing to do.\n"
        } else if plan.dryRun {
            out += "Dry run: nothing was changed.\n"
        } else {
            out += "Migrated and verified."
            out += plan.backup.map { " Backup kept at \($0).\n" } ?? " Backup removed.\n"
        }
        return out
    }
}
