// vaulttool git-merge: git's merge driver for vault files (`vaulttool git-merge %O %A %B`).

import Foundation
import VaultFormat
import VaultIO

/// `vaulttool git-merge [<credential options>] <ancestor> <ours> <theirs>`.
///
/// Spec: Spec/cli.md, "git-merge"; Spec/merge.md.
struct GitMerge: Command {
    static let configuration = CommandConfiguration(
        commandName: "git-merge",
        abstract: "Merge vault files for git (merge driver: vaulttool git-merge %O %A %B).",
        discussion: """
            Git runs it with the ancestor (%O), ours (%A) and theirs (%B) of a vault file. It
            merges three-way, writes the result over <ours> atomically and exits 0, so git
            records the merge with no conflict markers; a conflict keeps both versions (the
            other as a conflict copy) and is listed on standard error. It exits non-zero, with
            the reason on standard error and <ours> untouched, when it cannot merge. It never
            prompts: credentials come from the options, else from VAULTTOOL_PASSWORD_FILE (the
            path of a password file), VAULTTOOL_KEY_FILE (a key file) or VAULTTOOL_IDENTITY_FILE
            (a recipient's identity), with the device secret from VAULTTOOL_DEVICE_SECRET_FILE
            as usual.
            """
    )
    static let options = CredentialOptions.specs(without: CredentialOptions.passwordStdinFlag.spec)
    static let arguments = [
        ancestorArgument.spec, oursArgument.spec, theirsArgument.spec,
    ]

    static let ancestorArgument = Argument("ancestor", help: "The common ancestor (git's %O).")
    static let oursArgument = Argument("ours", help: "Our version (git's %A); the merge is written here.")
    static let theirsArgument = Argument("theirs", help: "Their version (git's %B).")

    /// The variables that supply credentials when no option does.
    static let passwordFileVariable = "VAULTTOOL_PASSWORD_FILE"
    static let keyFileVariable = "VAULTTOOL_KEY_FILE"

    let ancestor: String
    let ours: String
    let theirs: String
    var credentialOptions: CredentialOptions

    init(_ parsed: ParsedArguments) throws {
        ancestor = parsed[Self.ancestorArgument]
        ours = parsed[Self.oursArgument]
        theirs = parsed[Self.theirsArgument]
        credentialOptions = try CredentialOptions(parsed)
        let environment = ProcessInfo.processInfo.environment
        if !credentialOptions.hasPasswordSource, environment[Self.passwordFileVariable]?.isEmpty == false {
            credentialOptions.passwordFileEnv = Self.passwordFileVariable
        }
        if credentialOptions.keyFile == nil, let keyFile = environment[Self.keyFileVariable], !keyFile.isEmpty {
            credentialOptions.keyFile = keyFile
        }
        credentialOptions.promptAlternatives =
            "\(Self.passwordFileVariable), \(Self.keyFileVariable), --password-file or --password-file-env"
    }

    func run() throws {
        // A merge driver runs without a terminal, often inside another program: never prompt.
        guard
            credentialOptions.hasPasswordSource || credentialOptions.keyFile != nil
                || credentialOptions.identityFile != nil
        else {
            throw ToolError(
                "git-merge cannot prompt: set \(Self.passwordFileVariable) to a password file, "
                    + "\(Self.keyFileVariable) to a key file or VAULTTOOL_IDENTITY_FILE to an identity file",
                exitCode: .usage
            )
        }
        let credentials = try credentialOptions.credentials()
        let open = { (path: String) in try VaultFileReader(path: path).open(with: credentials) }
        var configuration = try VaultAccess.configuration()
        // %A is git's temporary copy, not the vault the rollback record follows: writing it
        // must not be refused as a rollback (the result is recorded, and is newer than both).
        configuration.rollbackPolicy = .accept
        let vault = try Vault(path: ours, credentials: credentials, configuration: configuration)
        // Git gives an empty ancestor when both branches added the file: merge two-way.
        let base = try FileManager.default.attributesOfItem(atPath: ancestor)[.size] as? Int == 0 ? nil : open(ancestor)
        let hint =
            "the vault was rekeyed on one branch: keep that branch's file and merge the other into it "
            + "with 'vaulttool merge --keep-key ours'"
        let report = try MergeOutput.translating(ours, theirs, keyHint: hint) {
            try vault.merge(try open(theirs), base: base)
        }
        MergeOutput.print(report, merged: theirs, into: ours, to: Output.err)
    }
}
