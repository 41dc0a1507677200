// vaulttool credential-server: serve systemd's LoadCredential= sockets from a vault.

import FoundationEssentials
import Glibc
import VaultDelivery
import VaultIO

/// `vaulttool credential-server --config <file> [--vault <path>] [<credential options>] [--socket <path>]`.
///
/// systemd connects once per credential at unit start, from a socket bound to the abstract
/// name `\0<random>/unit/<unit>/<id>`, and reads to end of file. The server answers a unit and
/// credential ID its config names with that item's secret, and closes every other connection
/// with nothing written. One connection is served at a time, each within a bounded time.
///
/// Spec: Spec/agent.md, section 7; Spec/cli.md, 4.22.
struct CredentialServerCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "credential-server",
        abstract: "Serve systemd credentials (LoadCredential=) from a vault.",
        discussion: """
            Listens on a Unix socket that systemd units name in LoadCredential=ID:SOCKET. systemd
            connects from the abstract address \\0<random>/unit/<unit>/<id>; the server looks up
            <unit> and <id> in the config file (lines of UNIT CREDENTIAL-ID REFERENCE, # for comments)
            and writes the secret of the item the reference names, such as
              myapp.service  db-password  vault://db/app
            Anything the config does not name, and any peer that is not root or this user, gets
            nothing. The vault is --vault, else $VAULTTOOL_VAULT, else the standard vault; it is read
            again for every request (with the agent's keys when it holds the vault, else with the
            credential options, read once at start), so a rotated secret is served at the next unit
            start. The socket is the one systemd passes (socket activation), else --socket. One line
            per request goes to standard error, never a secret. SIGTERM, SIGINT or SIGHUP stops it (status 0).
            """
    )
    @Option(
        "--config",
        valueName: "file",
        help: "The config file: UNIT CREDENTIAL-ID REFERENCE per line.",
        completion: .files
    )
    var configPath: String?
    @Option(VaultLocation.option) var vault: String?
    @Option(
        "--socket",
        valueName: "path",
        help: "The socket to create, without socket activation.",
        completion: .files
    )
    var socketPath: String?
    @Group(specs: CredentialOptions.options(without: "--password-stdin"))
    var credentialOptions: CredentialOptions
    /// The vault and how to open it, from `--vault` and the credential options.
    private(set) var store: VaultFileStore?

    mutating func validate() throws {
        guard configPath != nil else { throw UsageError("Name the config file with '--config'") }
        if let socketPath, !socketPath.hasPrefix("/") { throw UsageError("The socket must be an absolute path") }
        credentialOptions.mayPrompt = false  // a service has no terminal (R12-TXT-3)
        store = try VaultFileStore(vault: vault, options: credentialOptions)
    }

    func run() throws {
        guard let configPath, let store else { preconditionFailure("run() before validate()") }
        let config = try CredentialServerConfig.load(configPath)
        // Read once: a password from --password-env is removed from the environment when read.
        let held: Credentials? = store.hasNoCredential ? nil : try store.credentials()
        // Before the socket listens: a stop asked for from then on ends the loop, never kills it.
        let stop = try CredentialServer.StopSignals()
        let environment = ProcessInfo.processInfo.environment
        let listener: CredentialSocket
        let created: String?
        if let inherited = try CredentialSocket.inherited(environment: environment) {
            listener = inherited
            created = nil
        } else if let socketPath {
            do {
                listener = try CredentialSocket.listen(at: socketPath)
            } catch let failure as CredentialSocket.Failure {
                let reason = failure.code == EADDRINUSE ? "another server answers there" : failure.description
                throw ToolError("cannot listen on \(socketPath): \(reason)", exitCode: .ioFailure)
            } catch let error as VaultIOError {
                throw ToolError("cannot listen on \(socketPath): \(describe(error).0)", exitCode: .ioFailure)
            }
            created = socketPath
        } else {
            throw UsageError("Give '--socket', or start it by systemd socket activation (LISTEN_FDS)")
        }
        Self.log(
            "serving \(config.entries.count) credential(s) of \(store.path) on "
                + "\(created ?? "the socket systemd passed")"
        )
        let server = CredentialServer(
            config: config,
            open: {
                try store.openSnapshot {
                    guard let held else {
                        throw ToolError(
                            "the agent holds no keys for the vault, and no credential option was given at start"
                        )
                    }
                    return held
                }
            },
            describe: { describe($0).0 },
            log: Self.log
        )
        try server.serve(listener, until: stop)
        if let created { unlink(created) }
        Self.log("stopped")
    }

    /// One line on standard error, which journald records for the unit.
    static func log(_ line: String) { Output.err("vaulttool credential-server: \(line)\n") }
}
