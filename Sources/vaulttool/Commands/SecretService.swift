// vaulttool secret-service: answer org.freedesktop.secrets on the session bus from vaults.

import FoundationEssentials
import Glibc
import VaultIO
import VaultSecretService

/// `vaulttool secret-service [--vault <path>]... [<credential options>] [--replace] [--install]`.
///
/// Spec: Spec/secret-service.md.
struct SecretService: Command {
    static let configuration = CommandConfiguration(
        commandName: "secret-service",
        abstract: "Serve vaults to Secret Service clients (secret-tool, keyring, libsecret) over D-Bus.",
        discussion: """
            Owns org.freedesktop.secrets on the session bus and serves each --vault as a collection (the
            standard vault as 'login', the default alias, when no --vault is given). Items stored by
            secret-tool, Python keyring or git's credential-libsecret are vault items that 'vaulttool get'
            and the credential helpers see too. A vault opens with the agent's keys when the agent holds
            it, else with the credential options (read once), else with this user's device secret; with
            none, its collection is locked until 'vaulttool unlock', or until the program named by
            VAULT_ASKPASS (else SSH_ASKPASS) answers a client's unlock prompt. --install writes a D-Bus
            activation file and a systemd user unit instead of serving. SIGTERM, SIGINT or SIGHUP stops it
            (status 0).
            """
    )
    @RepeatedOption(
        "--vault",
        valueName: "path",
        help: "A vault to serve as a collection (repeatable; default: the standard vault).",
        completion: .files
    )
    var vaults: [String]
    @Flag("--replace", help: "Take org.freedesktop.secrets from an owner that allows it (gnome-keyring does not).")
    var replace: Bool
    @Flag("--install", help: "Write the D-Bus activation file and the systemd user unit, then exit.")
    var install: Bool
    @Flag("--only-allowed-executables", help: "Answer only callers whose executable is on the allow list.")
    var onlyAllowedExecutables: Bool
    @RepeatedOption(
        "--allow-executable",
        valueName: "path",
        help: "Add an executable (its path and SHA-256) to the allow list, then exit (repeatable).",
        completion: .files
    )
    var allowExecutables: [String]
    @RepeatedOption(
        "--disallow-executable",
        valueName: "path",
        help: "Remove an executable from the allow list, then exit (repeatable).",
        completion: .files
    )
    var disallowExecutables: [String]
    @Group(specs: CredentialOptions.options(without: "--password-stdin"))
    var credentialOptions: CredentialOptions

    func run() throws {
        if install {
            // The files carry only --vault: credentials would have to be read by whatever the bus
            // starts, and --replace means nothing for a provider started because nobody owns the name.
            guard !replace, credentialOptions.namesNoOption else {
                throw UsageError(
                    "--install takes only --vault: the provider it installs opens vaults with the "
                        + "agent's keys or this user's device secret"
                )
            }
            return try SecretServiceInstall.write(vaults: try vaults.map { try Self.servedPath($0).path })
        }
        if !allowExecutables.isEmpty || !disallowExecutables.isEmpty {
            return try SecretServiceAllowList.update(allow: allowExecutables, disallow: disallowExecutables)
        }
        credentialOptions.mayPrompt = false  // a bus service has no terminal
        let sources = try CollectionSource.choosing(
            vaults.isEmpty ? [nil] : vaults.map { $0 },
            locate: Self.servedPath,
            credentials: credentialOptions.sources,
            configuration: { try VaultAccess.configuration() }
        ) { path, error in
            // Said at start, as the sentence for credentials that do not open a vault is (§8).
            Output.err(
                "vaulttool: \(path): cannot use this user's device secret: \(describe(error).0); it stays locked\n"
            )
        }
        let provider = SecretServiceProvider(sources)
        if onlyAllowedExecutables { provider.executablePolicy = try SecretServiceAllowList.policy() }
        for c in provider.collections {
            if let failure = c.openFailure { Output.err("vaulttool: \(c.source.path): \(failure); it stays locked\n") }
        }
        do {
            try provider.serve(replace: replace) { name in
                let names = provider.collections.map { "\($0.source.name) (\($0.source.path))" }
                Output.err("vaulttool: serving \(name): \(names.joined(separator: ", "))\n")
            }
        } catch .stopped(let why) {
            Output.err("vaulttool: secret-service stopped: \(why)\n")
        } catch .nameOwned(let owner) {
            // With --replace the owner refused to give the name up (gnome-keyring does): only stopping it helps.
            let advice =
                replace
                ? "which does not allow replacement; stop it first" : "stop it, or pass --replace to take it over"
            throw ToolError("the name org.freedesktop.secrets is owned by \(owner), \(advice)", exitCode: .busy)
        } catch .bus(let why) {
            throw ToolError(why, exitCode: .ioFailure)
        }
    }

    /// The file of `--vault` (`nil`: the standard vault), which must exist unless it is the standard vault (§8).
    static func servedPath(_ vault: String?) throws -> (path: String, isStandard: Bool) {
        let (path, isStandard) = try VaultLocation.path(vault)
        if !isStandard && !FileManager.default.fileExists(atPath: path) {
            throw ToolError("\(path): no such vault; create it with 'vaulttool create'", exitCode: .notFound)
        }
        return (path, isStandard)
    }
}

/// `--install`: the activation file and user unit of Spec/secret-service.md §9
/// (``ProviderInstall/install(executable:vaults:environment:done:)``).
enum SecretServiceInstall {
    static func write(vaults: [String]) throws {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            throw ToolError("cannot find this executable's path (/proc/self/exe)", exitCode: .ioFailure)
        }
        do {
            let environment = ProcessInfo.processInfo.environment
            try ProviderInstall.install(
                executable: executable,
                vaults: vaults,
                environment: environment,
                done: Output.out
            )
        } catch let refusal as ProviderInstall.Refusal {
            throw ToolError(refusal.message, exitCode: .usage)
        }
    }
}
