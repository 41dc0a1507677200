// vaulttool git-diff: the textconv driver that lets git show a vault's changes item by item.

import FoundationEssentials
import Glibc
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
    static let credentialSpecs = CredentialOptions.specs(without: CredentialOptions.passwordStdinFlag.spec)
    @Group(specs: GitDiff.credentialSpecs) var givenCredentials: CredentialOptions
    @Argument("file", help: "The vault file (git passes a temporary copy).") var path: String

    /// The credentials given; a driver never prompts (it runs inside another program, R12-TXT-3).
    var credentialOptions: CredentialOptions {
        var options = givenCredentials
        options.mayPrompt = false
        return options
    }
    /// Whether a credential other than the device secret was named on the command line (any of
    /// the credential options, so that one added later counts too).
    var explicitCredential: Bool {
        givenCredentials.given.contains { $0.spec.names != CredentialOptions.deviceSecretFileOption.spec.names }
    }

    func run() throws {
        let reader = try VaultFileReader(path: path)
        let header: VaultHeader
        do {
            header = try VaultHeader.decode(try reader.headerBytes(), fileLength: reader.fileLength)
        } catch let error as VaultFormatError {
            // Not a vault, or a damaged header: say so, and let git show it.
            Output.out("vault file: unreadable header: \(describe(error).0)\n")
            return
        }
        switch open(reader, header) {
        case .success(let snapshot): Output.out(VaultTextView.opened(snapshot) { describe($0).0 })
        case .failure(let locked): Output.out(VaultTextView.locked(header, locked))
        }
    }

    /// Opens the file with, in order: the credential options; the agent's keys for a vault of
    /// this ID; the device secret alone. Never prompts (Spec/cli.md, R-GD-2).
    private func open(_ reader: VaultFileReader, _ header: VaultHeader) -> Result<VaultSnapshot, VaultTextView.Locked> {
        let options = credentialOptions
        if explicitCredential {
            return openWithCredentials(reader)
        }
        if let keys = options.sources.agentKeys(forVaultID: header.vaultID, preferring: path) {
            if let snapshot = try? reader.open(keys: keys) { return .success(snapshot) }
            // Keys of a later generation do not open a version from before a rekey: the
            // credentials may still do.
            if options.deviceSecretFile == nil {
                return .failure(.init(reason: "the agent's keys do not open this version (re-keyed since?)"))
            }
        }
        if options.deviceSecretFile != nil { return openWithCredentials(reader) }
        return .failure(
            .init(
                reason: "no credential (give git-diff a credential option in diff.vault.textconv, "
                    + "or 'vaulttool unlock' the vault in an agent)"
            )
        )
    }

    private func openWithCredentials(_ reader: VaultFileReader) -> Result<VaultSnapshot, VaultTextView.Locked> {
        do {
            let credentials = try credentialOptions.credentials()
            return .success(try reader.open(with: credentials))
        } catch {
            return .failure(.init(reason: describe(error).0))
        }
    }
}
