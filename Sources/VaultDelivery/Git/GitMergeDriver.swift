// vault: git's merge driver for vault files: the three versions opened without a prompt, ours screened.

import Glibc
public import VaultIO

/// The three versions of a vault file that git hands a merge driver (`%O %A %B %P`), opened
/// without a prompt, and their merge written over ours.
///
/// Opening it reads everything a merge needs and refuses what must not be merged:
///
/// - The versions open with the credentials the sources name, when they name one other than a
///   device secret (a password source, a key file, an identity, the TPM); else with the keys an
///   agent holds for a vault of ours' ID (git passes temporary copies whose paths the agent never
///   saw). With neither, the initialiser returns `nil`. Nothing is prompted for.
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
/// import VaultDelivery
/// import VaultIO
///
/// let versions = GitMergeDriver.Versions(ancestor: "%O", ours: "%A", theirs: "%B", name: "team.vault")
/// if let driver = try GitMergeDriver(versions, sources: CredentialSources(password: .file("pw"))) {
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
    ///   - sources: The credentials; they are read without a prompt.
    ///   - configuration: Where the rollback record is; its policy is set to accept, since ours
    ///     is screened here.
    ///   - agent: The agent to ask for keys when no credential is named; `nil` asks none.
    /// - Returns: `nil` when no credential is named and no agent holds keys for this vault.
    /// - Throws: `VaultIOError.Code.rolledBack` when ours brings back a retired master
    ///   key or a removed credential (its `rollback` says which);
    ///   `VaultFormatError.Code.wrongCredential` for a wrong credential, and when the agent's keys
    ///   do not open one of the versions (its reason names which, by ``Versions/name``);
    ///   ``VaultDeliveryError/Code/system`` when the ancestor cannot be read; the errors of
    ///   opening a vault otherwise.
    public init?(
        _ versions: Versions,
        sources: CredentialSources,
        configuration: VaultConfiguration = VaultConfiguration(),
        agent: VaultAgent? = VaultAgent.fromEnvironment()
    ) throws {
        var configuration = configuration
        configuration.rollbackPolicy = .accept
        var sources = sources
        sources.mayPrompt = false  // a driver runs inside git, often without a terminal (R12-TXT-3)
        let open: (String) throws -> VaultSnapshot
        let vault: Vault
        if sources.namesCredentialOtherThanDeviceSecret {
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
            // Keys of one branch do not open a version re-keyed on another: that is a missing
            // credential, not damage.
            func opening<T>(_ path: String, _ body: () throws -> T) throws -> T {
                do {
                    return try body()
                } catch let error as VaultFormatError where error.code == .headerAuthentication {
                    throw VaultFormatError(
                        .wrongCredential,
                        "the agent's keys do not open \(versions.describe(path)) (re-keyed on one branch?)"
                    )
                }
            }
            open = { path in try opening(path) { try VaultFileReader(path: path).open(keys: keys) } }
            vault = try opening(versions.ours) {
                try Vault(path: versions.ours, keys: keys, configuration: configuration)
            }
        } else {
            return nil
        }
        if let finding = vault.rollbackFinding,
            finding.kind == .retiredMasterKey || finding.kind == .removedCredential
        {
            throw VaultIOError(
                .rolledBack,
                path: versions.ours,
                reason: "\(versions.describe(versions.ours)) is an older copy (\(finding)): merging into it would "
                    + "seal the other branch's items under what it brings back",
                rollback: finding
            )
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
