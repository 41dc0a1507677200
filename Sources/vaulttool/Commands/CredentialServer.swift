// vaulttool credential-server: serve systemd's LoadCredential= sockets from a vault.

import FoundationEssentials
import Glibc
import VaultIO

/// `vaulttool credential-server --config <file> [--vault <path>] [<credential options>] [--socket <path>]`.
///
/// systemd connects once per credential at unit start, from a socket bound to the abstract
/// name `\0<random>/unit/<unit>/<id>`, and reads to end of file. The server answers a unit and
/// credential ID its config names with that item's secret, and closes every other connection
/// with nothing written. One connection is served at a time, each within a bounded time.
///
/// Spec: Spec/agent.md, section 7; Spec/cli.md, 4.22.
struct CredentialServer: Command {
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
    @Group(specs: CredentialOptions.specs(without: CredentialOptions.passwordStdinFlag.spec))
    var credentialOptions: CredentialOptions
    /// The vault and how to open it, from `--vault` and the credential options.
    private(set) var store: VaultFileStore?

    /// How long a peer has to read the secret (R-CS-7).
    static let sendTimeout = Duration.seconds(5)
    /// The largest credential systemd accepts (`CREDENTIAL_SIZE_MAX`, 1 MiB).
    static let maximumSecretByteCount = 1 << 20

    mutating func validate() throws {
        guard configPath != nil else { throw UsageError("Name the config file with '--config'") }
        if let socketPath, !socketPath.hasPrefix("/") { throw UsageError("The socket must be an absolute path") }
        var options = credentialOptions
        options.mayPrompt = false  // a service has no terminal (R12-TXT-3)
        store = try VaultFileStore(vault: vault, options: options)
    }

    func run() throws {
        guard let configPath, let store else { preconditionFailure("run() before validate()") }
        let config = try CredentialServerConfig.load(configPath)
        // Read once: a password from --password-env is removed from the environment when read.
        let held: Credentials? = store.hasNoCredential ? nil : try store.credentials()
        // Before the socket listens: a stop asked for from then on ends the loop, never kills it.
        let stop = try StopSignals()
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
        let server = Server(config: config, store: store, held: held)
        while stop.wait(for: listener) {
            let accepted: CredentialSocket?
            do {
                accepted = try listener.accept()
            } catch {
                throw ToolError(
                    "the socket cannot accept connections (\(error)); it must be a listening stream socket "
                        + "(ListenStream= in the .socket unit)",
                    exitCode: .ioFailure
                )
            }
            guard let connection = accepted else { continue }
            server.answer(connection)
        }
        if let created { unlink(created) }
        Self.log("stopped")
    }

    /// One line on standard error, which journald records for the unit.
    static func log(_ line: String) { Output.err("vaulttool credential-server: \(line)\n") }
}

// MARK: - Serving

extension CredentialServer {
    /// Answers one connection at a time.
    struct Server {
        let config: CredentialServerConfig
        let store: VaultFileStore
        let held: Credentials?

        /// Checks the peer (R-CS-6), finds its request in the config (R-CS-3), reads the newest
        /// generation of the vault and writes the secret (R-CS-7); logs one line either way.
        func answer(_ connection: CredentialSocket) {
            let uid: UInt32
            do {
                uid = try connection.peerUserID()
            } catch {
                return log("refused a connection: \(error)")
            }
            guard uid == 0 || uid == getuid() else {
                return log(
                    "refused a connection from user \(uid): only root (the system manager) and user \(getuid()) "
                        + "(this user's manager) are answered"
                )
            }
            let address: [UInt8]
            let request: CredentialRequest
            do {
                address = try connection.peerAddress()
                request = try CredentialRequest.parse(address)
            } catch let refusal as CredentialRequest.Refusal {
                return log(Self.line(for: refusal))
            } catch {
                return log("refused a connection: \(error)")
            }
            let name = "\(request.unit) \(request.credential)"
            guard let entry = config[request.unit, request.credential] else {
                return log("refused \(name): not in the config")
            }
            let served = "\(name) \(entry.reference)"
            do {
                let snapshot = try store.openSnapshot(otherwise: credentials)
                let secret = try snapshot.secret(for: entry.reference)
                var bytes = secret.copyBytes()
                defer { SecretMemory.wipe(&bytes) }
                guard bytes.count <= CredentialServer.maximumSecretByteCount else {
                    return log("refused \(served): the secret has \(bytes.count) bytes; systemd takes at most 1 MiB")
                }
                guard connection.reserveSendQueue(for: bytes.count) else {
                    // All or nothing: a secret that might be sent in part is not sent at all.
                    return log(
                        "refused \(served): the secret has \(bytes.count) bytes, more than this socket can queue "
                            + "at once (run the server as root, or raise net.core.wmem_max)"
                    )
                }
                try bytes.withUnsafeBytes { buffer in
                    try connection.send(buffer, deadline: .now + CredentialServer.sendTimeout)
                }
                log("served \(served) (\(bytes.count) bytes)")
            } catch let failure as CredentialSocket.Failure where failure.code == ETIMEDOUT {
                log("failed \(served): the peer did not read it within 5 seconds")
            } catch {
                log("failed \(served): \(describe(error).0)")
            }
        }

        /// The credentials read at start, or why there are none.
        private func credentials() throws -> Credentials {
            guard let held else {
                throw ToolError(
                    "the agent holds no keys for the vault, and no credential option was given at start"
                )
            }
            return held
        }

        private func log(_ line: String) { CredentialServer.log(line) }

        static func line(for refusal: CredentialRequest.Refusal) -> String {
            switch refusal {
            case .unnamed: "refused a connection with no address: systemd binds \\0<random>/unit/<unit>/<id>"
            case .notAbstract: "refused a connection from a file-system address: systemd binds an abstract one"
            case .malformed: "refused a connection whose address is not \\0<random>/unit/<unit>/<id>"
            }
        }
    }
}

// MARK: - Stopping

extension CredentialServer {
    /// SIGTERM, SIGINT and SIGHUP end the wait for the next connection (a self-pipe): the request
    /// being answered is finished, the socket file removed, and the server exits 0.
    final class StopSignals {
        private let readEnd: Int32

        init() throws {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else {
                throw ToolError("cannot make a pipe: \(String(cString: strerror(errno)))", exitCode: .ioFailure)
            }
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, O_NONBLOCK)
            }
            readEnd = ends[0]
            stopPipeWriteEnd = ends[1]
            var none = sigset_t()
            sigemptyset(&none)
            sigprocmask(SIG_SETMASK, &none, nil)
            for number in [SIGTERM, SIGINT, SIGHUP] {
                var action = sigaction()
                action.__sigaction_handler.sa_handler = { _ in
                    var byte: UInt8 = 1
                    _ = write(stopPipeWriteEnd, &byte, 1)
                }
                sigemptyset(&action.sa_mask)
                sigaction(number, &action, nil)
            }
            // A peer that closes before the secret is written must not kill the server.
            signal(SIGPIPE, SIG_IGN)
        }

        /// Waits until `listener` has a connection (`true`) or a stop signal arrived (`false`).
        func wait(for listener: CredentialSocket) -> Bool {
            while true {
                var fds = [
                    pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0),
                ]
                let count = poll(&fds, 2, -1)
                if count < 0 && errno == EINTR { continue }
                if fds[0].revents != 0 || count < 0 { return false }
                if fds[1].revents != 0 { return true }
            }
        }
    }
}

/// The write end of ``CredentialServer/StopSignals``' pipe, for the signal handler.
nonisolated(unsafe) private var stopPipeWriteEnd: Int32 = -1
