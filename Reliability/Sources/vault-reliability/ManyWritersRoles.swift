// vault reliability, suite 11 (many writers): the writer processes. Each writes until the stop
// file appears and logs every write it saw acknowledged, after the acknowledgement.
//
// Log lines (one `write` each):
//   ack <op> g|i <service or server> <account> <value>   a unique item stored
//   try <op>                                             before each write (and agent read)
//   ack inc                                              a counter increment
//   timeout <op>                                         the write failed with the lock timeout
//   error <op> <text>                                    any other failure
//   get ok / get bad <account> <text>                    an agent client read back its own write

import Foundation
import Glibc
import VaultIO

/// Where a many-writers run keeps its files.
struct ManyPaths {
    let directory: String
    var vault: String { directory + "/" + vaultName }
    var password: String { directory + "/password" }
    var state: String { directory + "/state" }
    var logs: String { directory + "/logs" }
    var work: String { directory + "/work" }
    var socket: String { directory + "/agent/agent.sock" }
    var stop: String { directory + "/stop" }
    var stopRequested: Bool { access(stop, F_OK) == 0 }
    func log(_ name: String) -> String { logs + "/\(name).log" }

    /// The library's own defaults where they matter here (the lock timeout, 5 s), the fast test
    /// KDF, and the rollback record `vaulttool` keeps under `$XDG_STATE_HOME` (one user).
    var configuration: VaultConfiguration {
        .insecureForTesting(
            lockTimeout: VaultConfiguration().lockTimeout,
            rollbackState: .directory(state + "/vault/seen")
        )
    }
}

/// The error a non-throwing setter reported, if any.
final class SetterFailure: @unchecked Sendable {
    var error: KeychainError?
}

enum ManyRoles {
    /// The library writer: in turn a subscript assignment and a `set` of a new key, and an
    /// `update` increment of the shared counter, all through one `Keychain`.
    static func library(directory: String, name: String) -> Never {
        let paths = ManyPaths(directory: directory)
        let log = AckLog(path: paths.log(name))
        let vault: Vault
        do {
            vault = try Vault(path: paths.vault, credentials: .password(password), configuration: paths.configuration)
        } catch {
            log.line("error open \(oneLine(error))")
            exit(70)
        }
        let failure = SetterFailure()
        let keychain = Keychain(service: "many-lib", vault: vault).onSetterFailure { error, _ in failure.error = error }
        var n = 0
        while !paths.stopRequested {
            n += 1
            let key = "\(name)-\(n)", value = randomValue(), op = ["inc", "sub", "set"][n % 3]
            log.line("try \(op)")
            do {
                switch op {
                case "sub":
                    failure.error = nil
                    keychain[key] = value
                    if let error = failure.error { throw error }
                    log.line("ack sub g many-lib \(key) \(value)")
                case "set":
                    try keychain.set(value, forKey: key)
                    log.line("ack set g many-lib \(key) \(value)")
                default:
                    try keychain.update("counter", as: Int.self) { ($0 ?? 0) + 1 }
                    log.line("ack inc")
                }
            } catch {
                if case .lockTimeout? = error as? KeychainError {
                    log.line("timeout \(op)")
                } else {
                    log.line("error \(op) \(oneLine(error))")
                }
            }
        }
        exit(0)
    }

    /// A driver of the real `vaulttool`: `kind` is `cli` (`set --password-file`), `helper` (the git
    /// credential helper's `store`) or `agent` (`set` and `get` with no credential, through the
    /// agent at `VAULT_AGENT_SOCK`). Killed with its process group, so mid-command too.
    static func command(directory: String, kind: String, name: String, tool: String) -> Never {
        let paths = ManyPaths(directory: directory)
        let log = AckLog(path: paths.log(name))
        let environment = ManyProcess.environment(
            stateHome: paths.state,
            agentSocket: kind == "agent" ? paths.socket : nil
        )
        let secret = paths.work + "/\(name).secret", output = paths.work + "/\(name).out"
        let errors = paths.work + "/\(name).err"
        func run(_ arguments: [String], input: String = "/dev/null") -> CInt {
            let pid = ManyProcess.spawn(
                tool,
                arguments,
                environment: environment,
                input: input,
                output: output,
                errors: errors
            )
            return ManyProcess.wait(pid)!
        }
        var written: [(account: String, value: String)] = []
        var n = 0
        while !paths.stopRequested {
            n += 1
            if kind == "agent", n % 3 == 0, let (account, value) = written.randomElement() {
                log.line("try get")
                let rc = run(["get", "--service", "many-agent", "--account", account, paths.vault])
                let got = String(decoding: readBytes(output) ?? [], as: UTF8.self)
                log.line(rc == 0 && got == value ? "get ok" : "get bad \(account) exit \(rc): \(firstLine(errors))")
                continue
            }
            let value = randomValue(), account = "\(name)-\(n)"
            let (item, arguments, input) = request(kind, name: name, n: n, value: value, paths, secret: secret)
            log.line("try \(kind)")
            let rc = run(arguments, input: input)
            if rc == 0 && kind == "agent" { written.append((account, value)) }
            if rc == 0 {
                log.line("ack \(kind) \(item) \(value)")
            } else if rc == 6 && firstLine(errors).lowercased().contains("another program is writing the vault") {
                log.line("timeout \(kind)")
            } else {
                log.line("error \(kind) exit \(rc): \(firstLine(errors))")
            }
        }
        exit(0)
    }

    /// The item a `vaulttool` writer's n-th write stores, the command line, and its stdin; the
    /// secret (or the helper's request, which holds it) goes to the 0600 file `secret`.
    static func request(
        _ kind: String,
        name: String,
        n: Int,
        value: String,
        _ paths: ManyPaths,
        secret: String
    ) -> (item: String, arguments: [String], input: String) {
        let account = "\(name)-\(n)"
        switch kind {
        case "helper":
            // Two users per host: a new host every second store.
            let host = "\(name)-\((n + 1) / 2).example", user = "u\(n)"
            let request = "protocol=https\nhost=\(host)\nusername=\(user)\npassword=\(value)\n\n"
            writeBytes(Array(request.utf8), to: secret)
            let arguments = [
                "credential-helper", "--vault", paths.vault, "--password-file", paths.password, "git", "store",
            ]
            return ("i \(host) \(user)", arguments, secret)
        case "agent":
            writeBytes(Array(value.utf8), to: secret)
            let arguments = [
                "set", "--service", "many-agent", "--account", account, "--secret-file", secret, paths.vault,
            ]
            return ("g many-agent \(account)", arguments, "/dev/null")
        default:
            writeBytes(Array(value.utf8), to: secret)
            let arguments = [
                "set", "--password-file", paths.password, "--service", "many-cli", "--account", account,
                "--secret-file", secret, paths.vault,
            ]
            return ("g many-cli \(account)", arguments, "/dev/null")
        }
    }

    static func oneLine(_ error: Error) -> String {
        "\(error)".replacingOccurrences(of: "\n", with: " ")
    }
}
