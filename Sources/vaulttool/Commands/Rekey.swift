// vaulttool rekey: replace the master key, so that removed credentials and old copies stop working.

import VaultIO

/// `vaulttool rekey --password-file <file> [--keep-password-file <file> ...] <vault>`.
struct Rekey: Command {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Replace the master key and seal every item again.",
        discussion: """
            Draws a new master key, seals every item again under it and rewraps every keyslot that is
            kept, in one atomic write. Afterwards an old copy of the vault, opened with a password or key
            file that was removed or changed, no longer opens anything written after the rekey.

            A keyslot holds the master key sealed under its own credential, so only that credential can
            rewrap it: a keyslot is kept when the credential given, a --keep-password-file password, this
            device's secret or this machine's TPM (a TPM2 keyslot) opens it. Any other keyslot makes
            rekey refuse (the error lists them) unless --drop-keyslots removes them. Other devices'
            ThisDeviceOnly items cannot be sealed again and could never be read after a rekey: rekey
            refuses while any exist, unless --drop-foreign deletes them. Give this device's secret
            (--device-secret-file) to keep its own ThisDeviceOnly items and device keyslots. Copies made
            before the rekey still open with the credentials they had and show what they hold: delete
            them.
            """
    )
    @Group var flags: RekeyFlags
    @Group(specs: CredentialOptions.forWriting) var credentialOptions: CredentialOptions
    @Argument(.vault) var path: String

    func run() throws {
        let credentials = try credentialOptions.credentials()
        let options = try flags.options(current: credentials, tpm2: credentialOptions.tpm2Unlock)
        let vault = try VaultAccess.vault(
            path,
            .credentials(credentials),
            acceptRollback: credentialOptions.acceptRollback
        )
        let report = try VaultAccess.write(vault) { txn in try txn.rekey(options) }
        VaultAccess.refreshAgent(after: vault)
        let summary = RekeyFlags.summary(report)
        Output.out("Rekeyed \(path): \(summary.prefix(1).uppercased() + summary.dropFirst()).\n")
    }
}
