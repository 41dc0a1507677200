// vaulttool migrate: bring a vault to the current format and KDF cost, or import into it.

import Foundation
import VaultFormat
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
            --access-group'); no 1.x vaulttool opens it afterwards. A vault in a newer format than this vaulttool
            is refused (no downgrade). With --from and a source file, imports instead (see
            'vaulttool import').
            """
    )
    static let options =
        [
            OptionSpec(names: ["--keep-backup"], valueName: nil, help: "Keep the backup after a successful migration."),
            OptionSpec(
                names: ["--to"],
                valueName: "format",
                help: "The format to reach: 1.1 (default), 1.2 (recipients) or 2.0 (access-group recipients)."
            ),
        ] + ImportRunner.specs + KDFOptions.specs + CredentialOptions.specs + RollbackOption.specs
    static let arguments = [
        ArgumentSpec(name: "source", help: "With --from: the export to import.", optional: true),
        ArgumentSpec(name: "vault", help: "The vault file."),
    ]

    let path: String
    /// `--to`: the version to reach (formats 1.2 and 2.0 only by this explicit choice, R12-MIG-1, R2-MIG-1).
    let targetVersion: (major: UInt16, minor: UInt16)?
    let runner: ImportRunner?
    let keepBackup, dryRun, json: Bool
    let kdfOptions: KDFOptions
    let credentialOptions: CredentialOptions

    init(_ parsed: ParsedArguments) throws {
        credentialOptions = try CredentialOptions(parsed)
        kdfOptions = try KDFOptions(parsed)
        keepBackup = parsed.flag("--keep-backup")
        dryRun = parsed.flag("--dry-run")
        json = parsed.flag("--json")
        switch parsed.value("--to") {
        case nil: targetVersion = nil
        case "1.1": targetVersion = (1, 1)
        case "1.2": targetVersion = (1, 2)
        case "2.0": targetVersion = (2, 0)
        case let other?: throw UsageError("'--to' is 1.1, 1.2 or 2.0, not '\(other)'")
        }
        if parsed.positionals.count == 2 {
            path = parsed.positional(1)!
            runner = try ImportRunner(parsed, source: parsed.positional(0)!, vault: path)
            if keepBackup { throw UsageError("'--keep-backup' does not apply to imports") }
        } else {
            path = parsed.positional(0)!
            runner = nil
            if parsed.value("--from") != nil { throw UsageError("Missing expected argument '<source>'") }
            if parsed.flag("--replace") || parsed.value("--accessibility") != nil || parsed.flag("--skip-duplicates")
                || parsed.flag("--create")
            {
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
        let version: (major: UInt16, minor: UInt16) =
            targetVersion
            ?? (header.isVersion2 ? (2, 0) : (VaultHeader.currentMajor, max(header.minor, VaultHeader.newVaultMinor)))
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
        let vault = try VaultAccess.vault(
            path,
            credentials: credentials,
            acceptRollback: credentialOptions.acceptRollback
        )
        var plan = Plan(vault: vault.path, fromFormat: from, toFormat: to, dryRun: dryRun)
        var planned = header.keyslots
        for (index, slot) in header.keyslots.enumerated() {
            guard let kdf = slot.kdf else { continue }
            let wanted = kdfOptions.isGiven ? target : Self.raise(kdf, to: target)
            guard wanted != kdf else { continue }
            guard try KeyslotProbe.opens(index, of: header, with: credentials) else {
                plan.unchangedKeyslots.append("#\(index) \(slot.kind): its credential was not given")
                continue
            }
            plan.keyslots.append(
                .init(
                    index: index,
                    kind: slot.kind.description,
                    from: KDFOptions.describe(kdf),
                    to: KDFOptions.describe(wanted)
                )
            )
            planned[index].kdf = wanted
        }
        // R-KS-8: the raised slots together must stay within the work of one open; refused here,
        // in the plan (and in --dry-run), before any backup or write.
        try KDFParameters.validateTotal(of: planned)
        // R11-PW-1: a password that is not in NFC form opened its 1.0 keyslots as typed; in 1.1
        // the reader normalizes it, so those keyslots are rewrapped with the NFC form.
        if header.minor < 1, let password = credentials.password, !PasswordNormalization.isNormalized(password) {
            for (index, slot) in header.keyslots.enumerated()
            where slot.kind.usesPassword && !plan.keyslots.contains(where: { $0.index == index }) {
                guard let kdf = slot.kdf, try KeyslotProbe.opens(index, of: header, with: credentials) else { continue }
                let described = KDFOptions.describe(kdf)
                plan.keyslots.append(
                    .init(index: index, kind: slot.kind.description, from: described, to: described + " (NFC password)")
                )
            }
        }
        if !dryRun && !plan.isEmpty {
            plan.backup = try migrate(vault, plan: &plan, target: target, credentials: credentials)
            plan.migrated = true
        } else if !dryRun {
            // A 1.1 vault may still hold this device's items without their tag (an earlier
            // migration without the password): re-tag them when the keys now allow it.
            let report = try VaultAccess.write(vault) { txn in try txn.upgradeToVersion11() }
            plan.retaggedItems = report.retagged
            plan.pendingDeviceItems = report.pending
            plan.migrated = report.retagged > 0
        }
        Output.out(json ? try Output.json(plan) : Self.text(plan))
    }

    /// Each parameter raised to at least the target's; nothing is ever lowered without explicit options.
    static func raise(_ kdf: KDFParameters, to target: KDFParameters) -> KDFParameters {
        guard kdf.memoryKiB < target.memoryKiB || kdf.iterations < target.iterations || kdf.isWeak else { return kdf }
        var raised = KDFParameters(
            memoryKiB: max(kdf.memoryKiB, target.memoryKiB),
            iterations: max(kdf.iterations, target.iterations),
            lanes: max(kdf.lanes, target.lanes)
        )
        while UInt64(raised.memoryKiB) * UInt64(raised.iterations) > KDFParameters.maximumWork && raised.iterations > 2
        {
            raised.iterations -= 1
        }
        return raised
    }

    /// Backs up, rewrites the keyslots, verifies the new file, then drops the backup.
    /// - Returns: The backup's path when it is kept.
    private func migrate(_ vault: Vault, plan: inout Plan, target: KDFParameters, credentials: Credentials) throws
        -> String?
    {
        let before = try vault.read { try $0.verify() }
        let backup = try Backup.write(of: vault.path)
        let report = try VaultAccess.write(vault) { txn in
            // First the format, so that rewrapped keyslots take the NFC password (R11-PW-1).
            let report = try txn.upgradeToVersion11()
            // Format 1.2 only when asked for: tools of format 1.1 then open the vault read-only.
            if txn.formatVersion.major == 1 && (targetVersion?.minor == 2 || targetVersion?.major == 2) {
                try txn.upgradeToVersion12()
            }
            // Format 2.0 only when asked for: no 1.x tool opens the vault afterwards (R2-MIG-1).
            if targetVersion?.major == 2 { try txn.upgradeToVersion2() }
            for change in plan.keyslots {
                let slot = txn.keyslots[change.index]
                let kdf =
                    change.to.hasSuffix("(NFC password)")
                    ? slot.kdf! : kdfOptions.isGiven ? target : Self.raise(slot.kdf!, to: target)
                // The same credential at a higher cost (or in NFC): nothing is revoked, so the master key stays.
                try txn.replaceKeyslot(
                    at: change.index,
                    kind: slot.kind,
                    credentials: credentials,
                    kdf: kdf,
                    rekey: nil
                )
            }
            return report
        }
        plan.retaggedItems = report.retagged
        plan.pendingDeviceItems = report.pending
        do {
            let snapshot = try VaultAccess.snapshot(vault.path, credentials: credentials)
            let after = try Progress.run("Verifying \(vault.path)") { try snapshot.verify() }
            guard after == before else {
                throw VaultFormatError(.recordCorrupt, "the migrated vault has a different number of items")
            }
        } catch {
            try Backup.restore(backup, over: vault.path)
            throw ToolError(
                "the migrated vault did not verify (\(describe(error).0)); the original was put back",
                exitCode: .damaged
            )
        }
        if keepBackup { return backup }
        try Backup.remove(backup)
        return nil
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

/// Whether given credentials open one keyslot, found by trying it alone.
enum KeyslotProbe {
    static func opens(_ index: Int, of header: VaultHeader, with credentials: Credentials) throws -> Bool {
        var alone = header
        alone.keyslots = [header.keyslots[index]]
        do {
            _ = try Progress.run("Checking keyslot #\(index)") { try KeyHierarchy.unlock(alone, with: credentials) }
            return true
        } catch let error as VaultFormatError where error.code == .wrongCredential {
            return false
        }
    }
}
