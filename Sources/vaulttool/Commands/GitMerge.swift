// vaulttool git-merge: git's merge driver for vault files (`vaulttool git-merge %O %A %B %P`).

import VaultDelivery
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
        let versions = GitMergeDriver.Versions(ancestor: ancestor, ours: ours, theirs: theirs, name: name)
        let opened: GitMergeDriver?
        do {
            opened = try GitMergeDriver(
                versions,
                sources: credentialOptions.sources,
                configuration: try VaultAccess.configuration()
            )
        } catch let error as VaultIOError where error.code == .rolledBack {
            // git-merge takes no `--accept-rollback`: merging into an older copy is never what the
            // person merging wants.
            let finding = error.rollback.map { "\($0)" } ?? error.reason
            throw ToolError(
                "our \(name.map { "'\($0)'" } ?? "file") is an older copy (\(finding)): merging into it "
                    + "would seal the other branch's items under what it brings back; check out the other branch "
                    + "and merge this one into it",
                exitCode: .damaged
            )
        } catch let error as VaultFormatError
            where error.code == .wrongCredential && !credentialOptions.namesCredentialOtherThanDeviceSecret
        {
            // The agent's keys: a credential opens what another branch re-keyed.
            throw ToolError(
                "\(error.reason); give the driver a credential (\(Self.passwordFileVariable))",
                exitCode: .wrongCredential
            )
        }
        guard let driver = opened else {
            throw ToolError(
                "git-merge cannot prompt: set \(Self.passwordFileVariable) to a password file, "
                    + "\(Self.keyFileVariable) to a key file or VAULTTOOL_IDENTITY_FILE to an identity file, "
                    + "or 'vaulttool unlock' the vault in an agent",
                exitCode: .usage
            )
        }
        let target = name ?? ours
        let other = name.map { "\($0) (their side)" } ?? theirs
        let hint = rekeyRecovery(driver.theirsUnderRetiredKey)
        let report = try MergeOutput.translating(target, other, keyHint: hint) { try driver.merge() }
        MergeOutput.print(report, merged: other, into: target, to: Output.err)
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
