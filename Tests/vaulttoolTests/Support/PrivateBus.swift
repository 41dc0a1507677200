// vaulttool tests: a private D-Bus session bus (dbus-run-session) for the secret-service tests.

import Foundation

enum PrivateBus {
    /// Runs `<workspace>/bus.sh` (sh) under `dbus-run-session` with HOME and the XDG directories
    /// inside the workspace, `VAULTTOOL` and `W` (the workspace) set, `extra` added; at most 120
    /// seconds. Returns the script's output (stdout and stderr together) as stdout and the status
    /// of `dbus-run-session`.
    static func run(_ w: Workspace, environment extra: [String: String] = [:]) throws -> RunResult {
        var environment = [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": w.path, "XDG_DATA_HOME": w.file("share"),
            "XDG_STATE_HOME": w.file("state"), "XDG_CONFIG_HOME": w.file("config"), "VAULTTOOL": Tool.path,
            "W": w.path, "LANG": "C.UTF-8",
        ]
        environment.merge(extra) { $1 }
        // The bus daemon (and any provider it activated) must not inherit the test's pipes, since
        // they can outlive the script: the output goes to a file, read once the run ends.
        let run = try Tool.runProgram(
            "/bin/sh",
            [
                "-c",
                "timeout -k 5 120 dbus-run-session -- /bin/sh \"$W/bus.sh\" >\"$W/bus.out\" 2>&1 </dev/null; echo $?",
            ],
            stdin: nil,
            environment: environment,
            in: w.path
        )
        let output = (try? String(contentsOfFile: w.file("bus.out"), encoding: .utf8)) ?? ""
        return RunResult(
            status: Int32(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1,
            stdout: output,
            stderr: run.stderr,
            stdoutBytes: Array(output.utf8)
        )
    }
}
