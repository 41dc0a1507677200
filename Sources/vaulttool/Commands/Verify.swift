// vaulttool verify: check every record with the credential.

import VaultIO

/// `vaulttool verify --password-file <file> <vault>`.
struct Verify: Command {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the integrity of every item in a vault.",
        discussion: """
            Authenticates the header and index and decrypts every record, its attributes and its
            secret, without printing any of them. Exit status 0 means the vault is sound; each
            damaged item is named on standard output by its ID (and its service or server and
            account when they are readable) and the exit status is 4. With a device secret, an
            item that reads as another device's fails the check (exit status 4) unless
            --allow-foreign says such items are expected. With the master key, every recipient's
            key and name must read too (exit status 4 otherwise, as for 'recipients ls').
            """
    )
    @Flag("--allow-foreign", help: "With a device secret, accept items of other devices.") var allowForeign: Bool
    @Group var credentialOptions: CredentialOptions
    @Argument("vault", help: "The vault file to check.") var path: String

    func run() throws {
        let snapshot = try VaultAccess.snapshot(path, credentialOptions)
        let result = try Progress.run("Verifying \(snapshot.index.count) items") { try snapshot.verifyEachItem() }
        guard result.damaged.isEmpty else {
            for damage in result.damaged { Output.out("damaged: \(DamageReport.line(damage))\n") }
            throw DamageReport.failure(result.damaged, of: try snapshot.index.count)
        }
        // Spec/format-v1.1.md, R11-DEV-3: with this device's secret, a foreign item may be one of
        // ours whose record was damaged in a 1.0-attributed way; it is not silently accepted.
        if snapshot.keys.deviceSecret != nil && result.foreign > 0 && !allowForeign {
            throw ToolError(
                "\(Output.count(result.foreign)) items read as another device's; if that is expected, pass --allow-foreign",
                exitCode: .damaged
            )
        }
        // Spec/cli.md 4.3: a holder of MK reads every stanza's info (R12-RCP-4); one that does
        // not read was added by a key holder without MK, or damaged, and blocks the next rekey.
        if snapshot.keys.holdsMasterKey && snapshot.header.recipientCount > 0 {
            _ = try Recipients.readable(try snapshot.recipients(), path)
        }
        for group in try snapshot.itemsSpelledSeveralWays() {
            let stale = group.dropFirst().map { "\($0.entry.itemID)" }.joined(separator: ", ")
            Output.err(
                "Warning: items \(group[0].entry.itemID) and \(stale) are one internet password in several spellings "
                    + "(written by older writers); lookups read \(group[0].entry.itemID), the others may hold a "
                    + "rotated-out secret: 'vaulttool rm --id <id>' removes one\n"
            )
        }
        var line = "ok: \(Output.count(result.checked)) items verified, generation \(snapshot.header.generation)"
        if result.skipped > 0 {
            line += "; \(Output.count(result.skipped)) items need another device or credential and were not checked"
        }
        Output.out(line + "\n")
    }
}
