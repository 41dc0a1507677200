// vaulttool git-merge: git's merge driver for vault files (`vaulttool git-merge %O %A %B %P`).

import Glibc
import VaultIO

/// `vaulttool git-merge [<credential options>] <ancestor> <ours> <theirs>`.
///
/// Spec: Spec/cli.md, "git-merge"; Spec/merge.md.
struct GitMerge: Command {
    static let configuration = CommandConfiguration(
        commandName: "git-merge",
        abstract: "Merge vault files for git (merge driver: vaulttool git-merge %O %A %B %P).",
        discussion: """
            Git runs it with the ancestor (%O), ours (%A) and theirs (%B) of a vault file, and
            its path in the repository (%P), which messages name. It merges three-way, writes
            the result over <ours> atomically and exits 0, so git records the merge with no
            conflict markers; a conflict keeps both versions (the other as a conflict copy) and
            is listed on standard error. It exits non-zero, with the reason on standard error and
            <ours> untouched, when it cannot merge. It never prompts: credentials come from the
            options, else from VAULTTOOL_PASSWORD_FILE (the path of a password file),
            VAULTTOOL_KEY_FILE (a key file) or VAULTTOOL_IDENTITY_FILE (a recipient's identity),
            else from the agent ('vaulttool unlock'), which it finds by the vault's ID as
            git-diff does; the device secret comes from VAULTTOOL_DEVICE_SECRET_FILE as usual.
            """
    )
    @Group(specs: CredentialOptions.options(without: "--password-stdin")) var credentialOptions: CredentialOptions
    @Argument("ancestor", help: "The common ancestor (git's %O).") var ancestor: String
    @Argument("ours", help: "Our version (git's %A); the merge is written here.") var ours: String
    @Argument("theirs", help: "Their version (git's %B).") var theirs: String
    /// git's %P, for messages: git's %A and %B are temporary files a person never saw.
    @OptionalArgument("path", help: "The file's path in the repository (git's %P).") var name: String?

    /// The variables that supply credentials when no option does.
    static let passwordFileVariable = "VAULTTOOL_PASSWORD_FILE"
    static let keyFileVariable = "VAULTTOOL_KEY_FILE"

    /// The credentials given, completed from the environment: a driver never prompts.
    func validate() {
        credentialOptions.mayPrompt = false  // it runs inside another program (R12-TXT-3)
        if !credentialOptions.hasPasswordSource, environmentValue(Self.passwordFileVariable)?.isEmpty == false {
            credentialOptions.sources.password = .fileNamedByEnvironment(Self.passwordFileVariable)
        }
        if credentialOptions.keyFile == nil, let keyFile = environmentValue(Self.keyFileVariable), !keyFile.isEmpty {
            credentialOptions.keyFile = keyFile
        }
        credentialOptions.promptAlternatives =
            "\(Self.passwordFileVariable), \(Self.keyFileVariable), --password-file or --password-file-env"
    }

    func run() throws {
        // A merge driver runs without a terminal, often inside another program: never prompt.
        let explicit =
            credentialOptions.hasPasswordSource || credentialOptions.keyFile != nil
            || credentialOptions.identityFile != nil || credentialOptions.tpm2
        // %A is git's temporary copy of the checked-out branch's file, screened by its vault ID:
        // a copy under a master key a rekey retired here, or with a removed credential, is refused
        // (exit 4, `screened`). Merging main into such a copy (an old file committed on a pull
        // request) would keep its retired key (R-MRG-11 keeps ours' key when ours alone differs
        // from the ancestor) and seal main's new items under the key a removed recipient holds.
        // A fork, or a key this user never saw, is let through: the rekeyed upstream of a
        // `git pull --rebase` racing a rekey looks exactly so (its generation can tie the unpushed
        // commit's); the merged result is then recorded as accepted, which keeps the key seen
        // before as known (L-RB-8).
        var configuration = try VaultAccess.configuration()
        configuration.rollbackPolicy = .accept
        let record = RollbackGuard(configuration.rollbackState)
        let open: (String) throws -> VaultSnapshot
        let vault: Vault
        if explicit {
            let credentials = try credentialOptions.credentials()
            open = { try VaultFileReader(path: $0).open(with: credentials) }
            vault = try screened { try Vault(path: ours, credentials: credentials, configuration: configuration) }
        } else if let keys = try agentKeys() {
            open = { path in
                do {
                    return try VaultFileReader(path: path).open(keys: keys)
                } catch let error as VaultFormatError where error.code == .headerAuthentication {
                    throw ToolError(
                        "the agent's keys do not open \(describe(path)) (re-keyed on one branch?); "
                            + "give the driver a credential (\(Self.passwordFileVariable))",
                        exitCode: .wrongCredential
                    )
                }
            }
            vault = try screened { try Vault(path: ours, keys: keys, configuration: configuration) }
        } else {
            throw ToolError(
                "git-merge cannot prompt: set \(Self.passwordFileVariable) to a password file, "
                    + "\(Self.keyFileVariable) to a key file or VAULTTOOL_IDENTITY_FILE to an identity file, "
                    + "or 'vaulttool unlock' the vault in an agent",
                exitCode: .usage
            )
        }
        // Git gives an empty ancestor when both branches added the file: merge two-way.
        var status = stat()
        guard stat(ancestor, &status) == 0 else {
            throw ToolError("cannot read \(ancestor): \(String(cString: strerror(errno)))", exitCode: .ioFailure)
        }
        let base = status.st_size == 0 ? nil : try open(ancestor)
        let target = name ?? ours
        let other = name.map { "\($0) (their side)" } ?? theirs
        let theirsSnapshot = try open(theirs)
        let theirsRetired = record.finding(for: theirsSnapshot)?.kind == .retiredMasterKey
        let report = try MergeOutput.translating(target, other, keyHint: rekeyRecovery(theirsRetired)) {
            try record.refuseRemovedCredentials(in: theirsSnapshot, side: "theirs")
            return try vault.merge(theirsSnapshot, base: base)
        }
        MergeOutput.print(report, merged: other, into: target, to: Output.err)
    }

    /// Opens ours and refuses it when it brings back what this user saw retired or removed
    /// (git-merge takes no `--accept-rollback`: merging into such a copy is never what the person
    /// merging wants).
    private func screened(_ open: () throws -> Vault) throws -> Vault {
        let vault = try open()
        guard let finding = vault.rollbackFinding,
            finding.kind == .retiredMasterKey || finding.kind == .removedCredential
        else { return vault }
        throw ToolError(
            "our \(name.map { "'\($0)'" } ?? "file") is an older copy (\(finding)): merging into it would seal "
                + "the other branch's items under what it brings back; check out the other branch and merge "
                + "this one into it",
            exitCode: .damaged
        )
    }

    /// A file git hands over, named as the person knows it.
    private func describe(_ path: String) -> String {
        guard let name else { return path }
        switch path {
        case ours: return "our '\(name)'"
        case theirs: return "the other branch's '\(name)'"
        default: return "the ancestor of '\(name)'"
        }
    }

    /// The agent's keys for this vault, found by its ID as `git-diff` finds them (git passes
    /// temporary copies whose paths the agent does not know); `nil` without an agent holding it.
    private func agentKeys() throws -> VaultKeys? {
        guard VaultAgent.fromEnvironment() != nil else { return nil }
        let vaultID = try VaultFileReader(path: ours).header().vaultID
        return credentialOptions.sources.agentKeys(forVaultID: vaultID, preferring: name ?? ours)
    }

    /// The exact commands that settle a merge of branches with different master keys (R-MRG-11),
    /// which the driver cannot decide: nothing in a file tells a new key from a retired one. Ours
    /// rekeyed alone is settled by the merge itself (the ancestor shows it); what is left is the
    /// other branch's rekey racing our commit (or both branches rekeyed), unless the rollback
    /// record knows the other branch's key as one a rekey retired: then it is an older copy.
    private func rekeyRecovery(_ theirsRetired: Bool) -> String {
        let file = name ?? "<vault>"
        if theirsRetired {
            return "the other branch's file is sealed under a master key that a rekey retired here: it is an "
                + "older copy (a branch from before the rekey, or one put back), and its key is not taken; "
                + "re-create its changes on this branch with vaulttool set"
        }
        return "the other branch rekeyed the vault, and a merge never picks a master key by itself. "
            + "To keep the other branch's new key, run: git show :2:\(file) > \(file).ours && "
            + "git checkout --theirs \(file) && vaulttool merge --keep-key ours \(file) \(file).ours && "
            + "rm \(file).ours && git add \(file). With 'git pull --rebase' (recommended for vault "
            + "repositories) this merge runs by itself"
    }
}
