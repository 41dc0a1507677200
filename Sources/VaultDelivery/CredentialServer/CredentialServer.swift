// vault: serving systemd's LoadCredential= sockets from a vault, one connection at a time.

import Glibc
import VaultIO

/// Answers systemd's credential requests with the secrets of the items a config names.
///
/// systemd connects once per credential at unit start, from a socket bound to the abstract
/// name `\0<random>/unit/<unit>/<id>`, and reads to end of file. The server answers a unit and
/// credential ID its config names with that item's secret, and closes every other connection
/// with nothing written. One connection is served at a time, each within a bounded time, and
/// each request reads the newest generation of the vault, so a rotated secret is served at the
/// next unit start. One line per request goes to the log, never a secret.
///
/// ```swift
/// let server = CredentialServer(
///     config: try CredentialServerConfig.load("/etc/vault/credentials.conf"),
///     open: { try vault.read { $0 } },
///     describe: { "\($0)" },
///     log: { print($0) }
/// )
/// try server.serve(try CredentialSocket.listen(at: path), until: try CredentialServer.StopSignals())
/// ```
///
/// Spec: Spec/agent.md, section 7 (R-CS-3 to R-CS-7).
public struct CredentialServer {
    /// How long a peer has to read the secret (R-CS-7).
    public static let sendTimeout = Duration.seconds(5)
    /// The largest credential systemd accepts (`CREDENTIAL_SIZE_MAX`, 1 MiB).
    public static let maximumSecretByteCount = 1 << 20

    /// Which unit gets which item.
    public let config: CredentialServerConfig
    private let open: () throws -> VaultSnapshot
    private let describe: (any Error) -> String
    private let log: (String) -> Void

    /// A server of `config`'s credentials.
    ///
    /// - Parameters:
    ///   - config: Which unit gets which item.
    ///   - open: The newest generation of the vault, read for each request.
    ///   - describe: The sentence for an error of `open` or of a lookup, for the log.
    ///   - log: Takes one line per request (and none holds a secret).
    public init(
        config: CredentialServerConfig,
        open: @escaping () throws -> VaultSnapshot,
        describe: @escaping (any Error) -> String,
        log: @escaping (String) -> Void
    ) {
        self.config = config
        self.open = open
        self.describe = describe
        self.log = log
    }

    /// Answers the connections of `listener`, one at a time, until `stop` sees a stop signal.
    ///
    /// - Throws: ``VaultDeliveryError/Code/system`` when the socket cannot accept connections at
    ///   all (serving would otherwise spin on it).
    public func serve(_ listener: CredentialSocket, until stop: StopSignals) throws(VaultDeliveryError) {
        while stop.wait(for: listener) {
            let accepted: CredentialSocket?
            do {
                accepted = try listener.accept()
            } catch {
                throw VaultDeliveryError(
                    .system,
                    "the socket cannot accept connections (\(error)); it must be a listening stream socket "
                        + "(ListenStream= in the .socket unit)"
                )
            }
            guard let connection = accepted else { continue }
            answer(connection)
        }
    }

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
        let request: CredentialRequest
        do {
            request = try CredentialRequest.parse(try connection.peerAddress())
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
            let secret = try open().secret(for: entry.reference)
            var bytes = secret.copyBytes()
            defer { SecretMemory.wipe(&bytes) }
            guard bytes.count <= Self.maximumSecretByteCount else {
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
                try connection.send(buffer, deadline: .now + Self.sendTimeout)
            }
            log("served \(served) (\(bytes.count) bytes)")
        } catch let failure as CredentialSocket.Failure where failure.code == ETIMEDOUT {
            log("failed \(served): the peer did not read it within 5 seconds")
        } catch {
            log("failed \(served): \(describe(error))")
        }
    }

    static func line(for refusal: CredentialRequest.Refusal) -> String {
        switch refusal {
        case .unnamed: "refused a connection with no address: systemd binds \\0<random>/unit/<unit>/<id>"
        case .notAbstract: "refused a connection from a file-system address: systemd binds an abstract one"
        case .malformed: "refused a connection whose address is not \\0<random>/unit/<unit>/<id>"
        }
    }
}

// MARK: - Stopping

extension CredentialServer {
    /// SIGTERM, SIGINT and SIGHUP end the wait for the next connection (a self-pipe): the request
    /// being answered is finished, and ``CredentialServer/serve(_:until:)`` returns. `SIGPIPE` is
    /// ignored from then on: a peer that closes before the secret is written must not kill the
    /// server. Make one before the socket listens, so that a stop asked for from then on ends the
    /// loop instead of killing the process.
    public final class StopSignals {
        private let readEnd: Int32

        /// Installs the handlers.
        ///
        /// - Throws: ``VaultDeliveryError/Code/system`` when the pipe cannot be made.
        public init() throws(VaultDeliveryError) {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else {
                throw VaultDeliveryError(.system, "cannot make a pipe: \(String(cString: strerror(errno)))")
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
            signal(SIGPIPE, SIG_IGN)
        }

        /// Waits until `listener` has a connection (`true`) or a stop signal arrived (`false`).
        public func wait(for listener: CredentialSocket) -> Bool {
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
