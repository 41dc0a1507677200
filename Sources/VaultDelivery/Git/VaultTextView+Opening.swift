// vault: the whole text view of a file git hands over, opened without a prompt (R-GD-2).

public import VaultIO

extension VaultTextView {
    /// The view of the vault file at `path` as a textconv driver prints it: the header facts
    /// always, the items when the file opens.
    ///
    /// The file opens with, in order: the credentials `sources` name, when `credentialNamed`
    /// says one was named (other than the device secret alone); the keys an agent holds for a
    /// vault of this ID (git hands over temporary copies whose paths the agent never saw); the
    /// device secret alone. Nothing is prompted for: `sources` should not prompt. A header that
    /// does not decode is a one-line view, not an error, because a failing textconv driver makes
    /// `git diff` fail.
    ///
    /// ```swift
    /// var sources = CredentialSources(password: .file("pw"))
    /// sources.mayPrompt = false
    /// print(try VaultTextView.text(ofFileAt: path, sources: sources, credentialNamed: true), terminator: "")
    /// ```
    ///
    /// Spec: Spec/cli.md, "git-diff" (R-GD-2).
    ///
    /// - Parameters:
    ///   - path: The file (git passes a temporary copy).
    ///   - sources: The credentials to try; their device secret counts only when nothing else opens.
    ///   - credentialNamed: Whether a credential other than the device secret was named.
    ///   - agent: The agent to ask for keys; `nil` asks none.
    ///   - describe: Words an error (a wrong credential, a damaged item or header).
    /// - Returns: The view, ending in a newline.
    /// - Throws: `VaultIOError` when the file cannot be read at all.
    public static func text(
        ofFileAt path: String,
        sources: CredentialSources,
        credentialNamed: Bool,
        agent: VaultAgent? = VaultAgent.fromEnvironment(),
        describe: (any Error) -> String = { "\($0)" }
    ) throws -> String {
        let reader = try VaultFileReader(path: path)
        let header: VaultHeader
        do {
            header = try reader.header()
        } catch let error as VaultFormatError {
            // Not a vault, or a damaged header: say so, and let git show it.
            return "vault file: unreadable header: \(describe(error))\n"
        }
        func withCredentials() -> Result<VaultSnapshot, Locked> {
            do {
                return .success(try reader.open(with: try sources.credentials()))
            } catch {
                return .failure(Locked(reason: describe(error)))
            }
        }
        let opened: Result<VaultSnapshot, Locked>
        let keys = credentialNamed ? nil : sources.agentKeys(forVaultID: header.vaultID, preferring: path, agent: agent)
        if credentialNamed {
            opened = withCredentials()
        } else if let keys, let snapshot = try? reader.open(keys: keys) {
            opened = .success(snapshot)
        } else if sources.deviceSecretFile != nil {
            // Keys of a later generation do not open a version from before a rekey: the device
            // secret may still do.
            opened = withCredentials()
        } else if keys != nil {
            opened = .failure(Locked(reason: "the agent's keys do not open this version (re-keyed since?)"))
        } else {
            opened = .failure(
                Locked(
                    reason: "no credential (give git-diff a credential option in diff.vault.textconv, "
                        + "or 'vaulttool unlock' the vault in an agent)"
                )
            )
        }
        switch opened {
        case .success(let snapshot): return Self.opened(snapshot, describe: describe)
        case .failure(let locked): return Self.locked(header, locked)
        }
    }
}
