// vault: opening other copies of one vault, with the keys already held or the credentials once.

/// Opens other copies of one vault (sync-conflict files, another branch's version, a common
/// ancestor): with the agent's keys when they open the copy (copies share the master key until
/// one is re-keyed), else with the credentials, read from their sources at most once whatever the
/// number of copies.
///
/// ```swift
/// var copies = VaultCopyOpener(try sources.opening("app.vault"), sources: sources)
/// let theirs = try copies.open("app.sync-conflict-20261201-101500-ABCDEFG.vault")
/// let report = try vault.merge(theirs)
/// ```
///
/// Spec: Spec/cli.md, "merge" (credentials); Spec/agent.md, section 1.
public struct VaultCopyOpener {
    /// The agent's keys, when the vault was opened with them.
    private let keys: VaultKeys?
    /// Where credentials come from when the keys do not open a copy.
    private let sources: CredentialSources
    /// The credentials, once read (or given by the opening).
    private var credentials: Credentials?

    /// An opener for copies of the vault that `opening` opened.
    ///
    /// - Parameters:
    ///   - opening: How the vault itself was opened: its agent keys are tried first, its
    ///     credentials are used as they are.
    ///   - sources: Where to read credentials when the agent's keys do not open a copy.
    public init(_ opening: VaultOpening, sources: CredentialSources) {
        self.sources = sources
        switch opening {
        case .agent(let keys, _): self.keys = keys
        case .credentials(let given):
            keys = nil
            credentials = given
        }
    }

    /// The newest generation of the copy at `path`.
    ///
    /// - Throws: ``VaultIOError`` when the file cannot be read; the errors of
    ///   ``CredentialSources/credentials(confirm:prompt:)`` and ``VaultFileReader/open(with:)``
    ///   (such as ``VaultFormatError/Code/wrongCredential``).
    public mutating func open(_ path: String) throws -> VaultSnapshot {
        let reader = try VaultFileReader(path: path)
        if let keys, let snapshot = try? reader.open(keys: keys) { return snapshot }
        if credentials == nil { credentials = try sources.credentials() }
        return try reader.open(with: credentials!)
    }
}
