// vaulttool git-diff: the textconv driver that lets git show a vault's changes item by item.

import VaultDelivery
import VaultIO

/// `vaulttool git-diff [<credential options>] <file>`, run by git as `diff.vault.textconv`.
///
/// Prints ``VaultTextView``: header facts always, items when a credential or the agent opens the
/// file, secrets only as keyed fingerprints. It never prompts, never consults or raises the
/// rollback record (git hands it old versions in temporary files), and exits 0 whenever the file
/// can be read, because a failing textconv makes `git diff` fail.
///
/// Spec: Spec/cli.md, "git-diff".
struct GitDiff: Command {
    static let configuration = CommandConfiguration(
        commandName: "git-diff",
        abstract: "Print a vault as sorted item-level text for git diff (a textconv driver).",
        discussion: """
            Shows the header (format, vault ID, generation, keyslots, counts) and, when the vault opens,
            one block per item sorted by item ID: class, accessibility, version, service or server
            fields, account, access group, label and dates. A secret is never shown: only a keyed
            fingerprint that changes when the secret changes and that only holders of the key can test.
            Nothing is prompted for: the credential options, VAULTTOOL_DEVICE_SECRET_FILE, or an agent
            (VAULT_AGENT_SOCK) holding this vault open it; without any, the items are reported locked
            and the exit status is still 0. 'vaulttool git-setup' installs it as diff.vault.textconv.
            """
    )
    /// The credential options without `--password-stdin`: git gives a textconv driver no input.
    static let credentialSpecs = CredentialOptions.options(without: "--password-stdin")
    @Group(specs: GitDiff.credentialSpecs) var credentialOptions: CredentialOptions
    @Argument("file", help: "The vault file (git passes a temporary copy).") var path: String

    func validate() {
        credentialOptions.mayPrompt = false  // a driver runs inside another program (R12-TXT-3)
    }

    /// Whether a credential other than the device secret was named on the command line (any of
    /// the credential options, so that one added later counts too).
    var explicitCredential: Bool {
        credentialOptions.given.contains { $0.spec.names[0] != "--device-secret-file" }
    }

    /// Prints ``VaultTextView/text(ofFileAt:sources:credentialNamed:agent:describe:)``, which opens
    /// the file without a prompt (Spec/cli.md, R-GD-2).
    func run() throws {
        Output.out(
            try VaultTextView.text(
                ofFileAt: path,
                sources: credentialOptions.sources,
                credentialNamed: explicitCredential,
                describe: { describe($0).0 }
            )
        )
    }
}
