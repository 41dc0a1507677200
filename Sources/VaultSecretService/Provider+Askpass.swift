// vaulttool secret-service: a prompt answered by an askpass program (Spec/secret-service.md
// R-SS-16, item 2), run beside the event loop so that other clients are answered meanwhile.

import CSecretService
import Glibc
import VaultIO

/// One askpass program asked for one collection's password.
struct AskpassRun {
    let pid: pid_t
    let fd: Int32
    let collection: ServedCollection
    /// What it wrote so far (the password: wiped when done).
    var output: [UInt8] = []
    /// Whether its standard output ended.
    var ended = false
    /// Whether it wrote more than R-SS-16 reads.
    var overflowed = false
}

/// The program R-SS-16 asks: `$VAULT_ASKPASS`, else `$SSH_ASKPASS`; none when both are unset or empty.
func askpassProgram() -> String? {
    for name in ["VAULT_ASKPASS", "SSH_ASKPASS"] {
        if let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty { return value }
    }
    return nil
}

extension SecretServiceProvider {
    /// Starts the askpass program for the next locked collection of prompt `path` that it has not
    /// asked yet; does nothing when one runs, none is configured, or none is left.
    func askNext(_ path: String) {
        guard var p = prompts[path], p.started, p.askpass == nil, let program = askpassProgram(),
            let c = p.collections.first(where: { c in c.isLocked && !p.asked.contains { $0 === c } })
        else { return }
        p.asked.append(c)
        var fd: Int32 = -1
        let pid = vss_askpass_spawn(program, "Unlock vault \(c.source.path) for the Secret Service", &fd)
        guard pid > 0 else {
            log("cannot run the askpass program \(program): \(String(cString: strerror(errno)))")
            prompts[path] = p
            return
        }
        p.askpass = AskpassRun(pid: pid, fd: fd, collection: c)
        prompts[path] = p
    }

    /// The descriptors of running askpass programs, for the event loop's poll.
    var askpassDescriptors: [Int32] { prompts.values.compactMap { $0.askpass.flatMap { $0.ended ? nil : $0.fd } } }

    /// Reads what running askpass programs wrote. A program that exited answers its prompt with
    /// what it wrote by then (whatever it left running is killed with its process group); one
    /// that wrote more than R-SS-16 reads is killed at once and dismisses it.
    func serviceAskpass() {
        for (path, p) in prompts {
            guard var run = p.askpass else { continue }
            drain(&run)
            let exited = vss_child_exited(run.pid) == 1
            guard exited || run.overflowed else {
                prompts[path]?.askpass = run
                continue
            }
            if exited { drain(&run) }
            let status = end(run)
            close(run.fd)
            prompts[path]?.askpass = nil
            let exitedZero = exited && (status & 0x7f) == 0 && (status >> 8) & 0xff == 0
            if run.output.last == 0x0a { run.output.removeLast() }
            let answered = exitedZero && !run.overflowed && run.output.count <= BusLimits.textBytes
            // Another prompt's answer may have opened it meanwhile: no second key derivation.
            let opened = answered && (!run.collection.isLocked || run.collection.unlock(password: run.output))
            SecretMemory.wipe(&run.output)
            if !opened {
                log("\(run.collection.source.path): the askpass program gave no password that opens it")
                if let p = prompts[path] { complete(path, p, dismissed: true) }
                continue
            }
            askNext(path)
        }
    }

    /// Ends the askpass program of a prompt that completed or was dismissed.
    func stopAskpass(_ p: Prompt) {
        guard var run = p.askpass else { return }
        end(run)
        close(run.fd)
        SecretMemory.wipe(&run.output)
    }

    /// Kills the program's process group (the program too, unless it exited), and reaps the
    /// program; returns its wait status.
    @discardableResult
    private func end(_ run: AskpassRun) -> Int32 {
        kill(-run.pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(run.pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    private func drain(_ run: inout AskpassRun) {
        var buffer = [UInt8](repeating: 0, count: 512)
        defer { SecretMemory.wipe(&buffer) }
        while !run.ended {
            let n = read(run.fd, &buffer, buffer.count)
            if n > 0 {
                if run.output.count + n > BusLimits.textBytes + 1 {
                    run.overflowed = true
                    return
                } else {
                    run.output += buffer[..<n]
                }
            } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                run.ended = true
            } else if errno == EAGAIN {
                return
            }
        }
    }

}

extension ServedCollection {
    /// Opens the vault with `password` (and the device secret given at start); hands the keys to
    /// the agent when one runs, else keeps them until `Lock` (R-SS-16, R-SS-17).
    func unlock(password: [UInt8]) -> Bool {
        guard !password.isEmpty else { return false }
        let credentials = Credentials(
            password: SecretBytes(bytes: password, protection: .guarded),
            deviceSecret: source.credentials?.deviceSecret
        )
        guard let vault = try? Vault(path: source.path, credentials: credentials, configuration: source.configuration)
        else { return false }
        if let agent = VaultAgent.fromEnvironment(), (try? agent.add(vault)) != nil {
            forgetAnswer()
        } else {
            keepUnlocked(vault)
        }
        return true
    }
}
