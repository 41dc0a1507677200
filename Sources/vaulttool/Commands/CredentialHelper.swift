// vaulttool credential-helper: git's and docker's credential-helper protocols over a vault.

import Glibc
import VaultDelivery
import VaultIO

/// `vaulttool credential-helper [--vault <path>] [<credential options>] git|docker <action>`.
///
/// Also run as `git-credential-vault <action>` or `docker-credential-vault <action>` through a
/// symbolic link to `vaulttool` (see ``arguments(invokedAs:)``), the names git and docker look for.
///
/// Spec: Spec/cli.md, "credential-helper".
struct CredentialHelper: Command {
    static let configuration = CommandConfiguration(
        commandName: "credential-helper",
        abstract: "Serve git's or docker's credential-helper protocol from a vault.",
        discussion: """
            Reads the protocol's request on standard input and writes its answer on standard output;
            nothing is ever prompted for. The vault is --vault, else $VAULTTOOL_VAULT, else the standard
            per-user vault ($XDG_DATA_HOME/vault/default.vault), opened with the credential options or,
            when none is given, with this user's device secret. Install with
              git config --global credential.helper '!vaulttool credential-helper git'
            or link vaulttool as git-credential-vault or docker-credential-vault on the PATH.
            """
    )
    @Option(VaultLocation.option) var vault: String?
    @Group var credentialOptions: CredentialOptions
    @Argument("helper", help: "git or docker.") var helperName: String
    @Argument("action", help: "git: get, store, erase. docker: get, store, erase, list, version.") var action: String

    /// The two protocols.
    enum Helper: String {
        case git, docker
    }

    private(set) var helper = Helper.git

    mutating func validate() throws {
        guard let helper = Helper(rawValue: helperName) else {
            throw UsageError("Unknown credential helper '\(helperName)'; use git or docker")
        }
        self.helper = helper
        credentialOptions.mayPrompt = false  // a helper runs inside another program (R12-TXT-3)
        if credentialOptions.usesStdin {
            throw UsageError(
                "Standard input carries the \(helperName) protocol; give the password with '--password-file'"
            )
        }
    }

    func run() throws {
        switch helper {
        case .git:
            // gitcredentials(7): a helper silently ignores an action it does not know.
            guard GitCredentialProtocol.actions.contains(action) else { return }
            let store = try VaultFileStore(vault: vault, options: credentialOptions)
            var input = try Self.readInput(limit: 64 << 10)
            defer { SecretMemory.wipe(&input) }
            var out = try GitCredentialProtocol(store: store).run(action, input: input)
            defer { SecretMemory.wipe(&out) }
            Output.outBytes(out)
        case .docker:
            if action == "version" { return Output.out("docker-credential-vault (vaulttool) \(VaultTool.version)\n") }
            // docker-credential-helpers: every failure is one line on standard output and status 1.
            do {
                var out = try DockerCredentialProtocol(store: {
                    try VaultFileStore(vault: vault, options: credentialOptions)
                }).run(action, input: { try Self.readInput(limit: 1 << 20) })
                defer { SecretMemory.wipe(&out) }
                Output.outBytes(out)
            } catch {
                Output.out(((error as? DockerCredentialProtocol.Failure)?.message ?? describe(error).0) + "\n")
                throw ExitCode.failure
            }
        }
    }

    /// Standard input, read to its end, refused past `limit` bytes (64 KiB for git, 1 MiB for docker:
    /// far above any credential request, and a bound on what a runaway writer makes the helper hold).
    static func readInput(limit: Int) throws -> [UInt8] {
        try SecretInput.read(
            "standard input",
            from: STDIN_FILENO,
            limit: limit,
            why: "a credential request is far smaller; nothing was read or changed"
        )
    }

    // MARK: - Invocation under the helpers' own names

    /// The names that run a helper directly: git runs `git-credential-<name>` for
    /// `credential.helper = <name>`, docker runs `docker-credential-<credsStore>`.
    static let linkNames: [String: Helper] = ["git-credential-vault": .git, "docker-credential-vault": .docker]

    /// The arguments for ``VaultTool/run(_:)``: `argv` without its first word, with
    /// `credential-helper git|docker` put in front when the program was started under a helper's name.
    static func arguments(invokedAs argv: [String]) -> [String] {
        let rest = Array(argv.dropFirst())
        guard let first = argv.first, let helper = linkNames[lastPathComponent(first)] else { return rest }
        return ["credential-helper", helper.rawValue] + rest
    }
}
