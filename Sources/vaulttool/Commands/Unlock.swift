// vaulttool unlock / lock: hand a vault's keys to the agent, or take them back.

import VaultIO

/// `vaulttool unlock --password-file <file> <vault>`.
struct Unlock: Command {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Unlock a vault once and hand its keys to the vault agent.",
        discussion: """
            Runs the key derivation here and sends the keys (never the password) to the agent at
            VAULT_AGENT_SOCK. Until they are dropped, commands of this user that name the vault and
            give no password or key file use them. Anyone running as this user can then read the
            vault's items through the agent. The agent holds at most 32 vaults, each with a path of
            at most 1,024 bytes; 'vaulttool lock' one to make room.
            """
    )
    @Group var credentialOptions: CredentialOptions
    @Argument(.vault) var path: String

    func run() throws {
        guard let agent = VaultAgent.fromEnvironment() else {
            throw ToolError(
                "VAULT_AGENT_SOCK is not set; start one with: eval \"$(vaulttool agent)\"",
                exitCode: .usage
            )
        }
        let snapshot = try VaultAccess.snapshot(path, credentials: try credentialOptions.credentials())
        let resolved = try VaultAgent.resolvedPath(path)
        do {
            try agent.add(snapshot, path: resolved)
        } catch {
            throw ToolError("cannot hand the keys to the agent at VAULT_AGENT_SOCK: \(error)", exitCode: .ioFailure)
        }
        Output.out("Unlocked \(resolved) in the agent.\n")
    }
}

/// `vaulttool lock [<vault>]`.
struct Lock: Command {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Make the vault agent drop the keys of one vault, or of every vault.",
        discussion: """
            Without a vault, every vault the agent holds is dropped. The agent also drops keys on
            its own after its idle timeout and at the end of their lifetime.
            """
    )
    @OptionalArgument("vault", help: "The vault file (default: every vault).") var path: String?

    func run() throws {
        guard let agent = VaultAgent.fromEnvironment() else {
            throw ToolError("VAULT_AGENT_SOCK is not set: no agent to lock", exitCode: .usage)
        }
        let resolved = try path.map { try VaultAgent.resolvedPath($0) }
        let dropped: Int
        do {
            dropped = try agent.lock(path: resolved)
        } catch {
            throw ToolError("cannot reach the agent at VAULT_AGENT_SOCK: \(error)", exitCode: .ioFailure)
        }
        Output.out("The agent dropped the keys of \(dropped) vault\(dropped == 1 ? "" : "s").\n")
    }
}
