// vault: git's merge driver for vault files: the three versions opened without a prompt, ours screened.

import Glibc
public import VaultIO

/// The three versions of a vault file that git hands a merge driver (`%O %A %B %P`), opened
/// without a prompt, and their merge written over ours.
///
/// Opening it reads everything a merge needs and refuses what must not be merged:
///
/// - The versions open with the credentials the sources name, when the caller says one was
///   named; else with the keys an agent holds for a vault of ours' ID (git passes temporary
///   copies whose paths the agent never saw). With neither, the initialiser returns `nil`.
/// - Ours is screened by the rollback record: a copy under a master key a rekey retired here, or
///   with a removed credential, is refused. Merging main into such a copy (an old file committed
///   on a pull request) would keep its retired key (R-MRG-11 keeps ours' key when ours alone
///   differs from the ancestor) and seal main's new items under the key a removed recipient
///   holds. A fork, or a key this user never saw, is let through: the rekeyed upstream of a
///   `git pull --rebase` racing a rekey looks exactly so; the merged result is then recorded as
///   accepted, which keeps the key seen before as known (L-RB-8).
/// - An empty ancestor (git's when both branches added the file) makes the merge two-way.
///
/// ```swift
/// var sources = CredentialSources(password: .file("pw"))
/// sources.mayPrompt = false
/// let versions = GitMergeDriver.Versions(ancestor: "%O", ours: "%A", theirs: "%B", name: "team.vault")
/// if let driver = try GitMergeDriver(versions, sources: sources, credentialNamed: true) {
///     let report = try driver.merge()
/// }
/// ```
///
/// Spec: Spec/cli.md, "git-merge"; Spec/merge.md.
public struct GitMergeDriver {
    /// The files git hands over, and the file's path in the repository for messages.
    public struct Versions: Sendable {
        /// The common ancestor (`%O`); an empty file when both branches added the file.
        public var ancestor: String
        /// Ours (`%A`): the merge is written here.
        public var ours: String
        /// Theirs (`%B`).
        public var theirs: String
        /// The file's path in the repository (`%P`): `%A` and `%B` are temporary files a person
        /// never saw.
        public var name: String?

        /// The versions git passes.
        public init(ancestor: String, ours: String, theirs: String, name: String?) {
            self.ancestor = ancestor
            self.ours = ours
            self.theirs = theirs
            self.name = name
        }
    }

    /// The variable `vaulttool git-merge` reads a password file's path from, which messages name.
    public static let passwordFileVariable = "VAULTTOOL_PASSWORD_FILE"

    /// The files.
    public let versions: Versions
    /// Ours, opened for the write, screened.
    private let vault: Vault
    /// The ancestor; `nil` for a two-way merge.
    private let base: VaultSnapshot?
    /// Theirs.
    private let theirs: VaultSnapshot
    /// The rollback record that screened ours.
    private let record: RollbackGuard
    /// Whether theirs is sealed under a master key that a rekey retired here: an older copy,
    /// whose key a merge must not take.
    public let theirsUnderRetiredKey: Bool

    /// Opens the three versions.
    ///
    /// - Parameters:
    ///   - versions: The files.
    ///   - sources: The credentials; they should not prompt.
    ///   - credentialNamed: Whether a credential was named (the sources are then used, and no agent).
    ///   - configuration: Where the rollback record is; its policy is set to accept, since ours
    ///     is screened here.
    ///   - agent: The agent to ask for keys when no credential is named; `nil` asks none.
    /// - Returns: `nil` when no credential is named and no agent holds keys for this vault.
    /// - Throws: `VaultIOError.Code.rolledBack` when ours brings back a retired master
    ///   key or a removed credential (its `rollback` says which);
    ///   `VaultFormatError.Code.wrongCredential` when the agent's keys do not open the ancestor
    ///   or theirs; ``VaultDeliveryError/Code/system`` when the ancestor cannot be read; the
    ///   errors of opening a vault otherwise.
    public init?(
        _ versions: Versions,
        sources: CredentialSources,
        credentialNamed: Bool,
        configuration: VaultConfiguration = VaultConfiguration(),
        agent: VaultAgent? = VaultAgent.fromEnvironment()
    ) throws {
        var configuration = configuration
        configuration.rollbackPolicy = .accept
        let open: (String) throws -> VaultSnapshot
        let vault: Vault
        if credentialNamed {
            let credentials = try sources.credentials()
            open = { try VaultFileReader(path: $0).open(with: credentials) }
            vault = try Vault(path: versions.ours, credentials: credentials, configuration: configuration)
        } else if agent != nil,
            let keys = sources.agentKeys(
                forVaultID: try VaultFileReader(path: versions.ours).header().vaultID,
                preferring: versions.name ?? versions.ours,
                agent: agent
            )
        {
            open = { path in
                do {
                    return try VaultFileReader(path: path).open(keys: keys)
                } catch let error as VaultFormatError where error.code == .headerAuthentication {
                    throw VaultFormatError(
                        .wrongCredential,
                        "the agent's keys do not open \(versions.describe(path)) (re-keyed on one branch?); "
                            + "give the driver a credential (\(Self.passwordFileVariable))"
                    )
                }
            }
            vault = try Vault(path: versions.ours, keys: keys, configuration: configuration)
        } else {
            return nil
        }
        if let finding = vault.rollbackFinding,
            finding.kind == .retiredMasterKey || finding.kind == .removedCredential
        {
            throw VaultIOError(.rolledBack, path: versions.ours, rollback: finding)
        }
        var status = stat()
        guard stat(versions.ancestor, &status) == 0 else {
            throw VaultDeliveryError(
                .system,
                "cannot read \(versions.ancestor): \(String(cString: strerror(errno)))"
            )
        }
        self.versions = versions
        self.vault = vault
        record = RollbackGuard(configuration.rollbackState)
        base = status.st_size == 0 ? nil : try open(versions.ancestor)
        theirs = try open(versions.theirs)
        theirsUnderRetiredKey = record.finding(for: theirs)?.kind == .retiredMasterKey
    }

    /// Merges theirs into ours (three-way, or two-way without an ancestor) and writes the result
    /// over ours atomically.
    ///
    /// - Throws: `VaultIOError.Code.rolledBack` when theirs lacks a credential the
    ///   record saw removed; `VaultMergeError` when the versions cannot be merged; the errors of
    ///   `Vault.merge(_:base:options:)`.
    public func merge() throws -> MergeReport {
        try record.refuseRemovedCredentials(in: theirs, side: "theirs")
        return try vault.merge(theirs, base: base)
    }
}

extension GitMergeDriver.Versions {
    /// A file git hands over, named as the person knows it.
    func describe(_ path: String) -> String {
        guard let name else { return path }
        switch path {
        case ours: return "our '\(name)'"
        case theirs: return "the other branch's '\(name)'"
        default: return "the ancestor of '\(name)'"
        }
    }
}
