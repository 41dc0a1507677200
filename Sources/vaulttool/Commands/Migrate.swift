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
            removed once the new file verifies. Password keyslots below the target cost (the
            interactive preset unless --kdf options say otherwise) are raised to it. A vault in a
            newer format than this vaulttool is refused (no downgrade). With --from and a source
            file, imports instead (see 'vaulttool import').
            """
    )
    static let options =
        [
            OptionSpec(names: ["--keep-backup"], valueName: nil, help: "Keep the backup after a successful migration.")
        ] + ImportRunner.specs + KDFOptions.specs + CredentialOptions.specs
    static let arguments = [
        ArgumentSpec(name: "source", help: "With --from: the export to import.", optional: true),
        ArgumentSpec(name: "vault", help: "The vault file."),
    ]

    let path: String
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

        var isEmpty: Bool { fromFormat == toFormat && keyslots.isEmpty }
    }

    func run() throws {
        if let runner { return try runner.run(credentials: credentialOptions) }
        let header = try VaultFileReader(path: path).header()
        let from = "\(header.major).\(header.minor)"
        let to = "\(VaultHeader.currentMajor).\(VaultHeader.currentMinor)"
        // R-HDR-3: a newer minor is read-only here; rewriting it would drop what it added.
        if (header.major, header.minor) > (VaultHeader.currentMajor, VaultHeader.currentMinor) {
            throw ToolError(
                "vault format \(from) is newer than this vaulttool (\(to)); migrate never downgrades: install a newer vaulttool",
                exitCode: .unsupported
            )
        }
        let target = kdfOptions.isGiven ? try kdfOptions.resolve() : KDFParameters.default
        let credentials = try credentialOptions.credentials()
        let vault = try VaultAccess.vault(path, credentials: credentials)
        var plan = Plan(vault: vault.path, fromFormat: from, toFormat: to, dryRun: dryRun)
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
        }
        if !dryRun && !plan.isEmpty {
            plan.backup = try migrate(vault, plan: plan, target: target, credentials: credentials)
            plan.migrated = true
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
    private func migrate(_ vault: Vault, plan: Plan, target: KDFParameters, credentials: Credentials) throws -> String?
    {
        let before = try vault.read { try $0.verify() }
        let backup = try Backup.write(of: vault.path)
        try VaultAccess.write(vault) { txn in
            for change in plan.keyslots {
                let slot = txn.keyslots[change.index]
                let kdf = kdfOptions.isGiven ? target : Self.raise(slot.kdf!, to: target)
                try txn.replaceKeyslot(at: change.index, kind: slot.kind, credentials: credentials, kdf: kdf)
            }
        }
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
        if plan.isEmpty {
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
