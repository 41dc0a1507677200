// vault reliability: one executable for every suite, and the child roles the suites start.
//
// Usage: vault-reliability <suite> [--quick|--full] [options]
//        vault-reliability child-<role> ...   (started by the suites themselves)

import Foundation
import Glibc

setvbuf(stdout, nil, _IOLBF, 0)
let arguments = Array(CommandLine.arguments.dropFirst())
let mode: Mode = arguments.contains("--full") ? .full : .quick

func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}

let usage = """
    USAGE: vault-reliability <suite> [--quick|--full]

    SUITES:
      crash-points   1. _exit at every system call of a commit
      kill-loop      2. SIGKILL a committing child at random moments
      power-loss     3. replay a recorded run with unsynced writes applied, dropped or garbled
                        (--shim <vault_shim.so>, built by scripts/reliability.sh)
      io-errors      4. EIO/ENOSPC/EINTR at every write, fsync, close, rename; a full tmpfs
      concurrency    5. 4 writers incrementing counters, readers, a killed lock holder
      tamper         6. every bit flip and truncation of every valid fixture
      tamper-v3      6. every bit flip and truncation of format-3 files the library writes
      tamper-keyholder  6. format 2.0 files rewritten by a holder of BK alone or a limited recipient,
                        MAC and index recomputed, read by the owner and each limited recipient
                        (--vaulttool <path>: vaulttool verify must agree on the named variants)
      tamper-keyholder-v3  6. format-3 files committed in place by a holder of BK alone or a limited
                        recipient, changing scopes it cannot write; read by every reader (--vaulttool)
      hygiene        8. file modes, strings of vaults and fixtures
      sync           9. 3 replicas, random changes, git pull/rebase and conflict copies
      sync-two-way   9. 3 replicas, two-way merges only, random orders, clocks an hour apart; causality
                        tracked: converged, lost, stale conflict copies, revived secrets (--seed)
      many-writers  11. library, vaulttool, credential-helper and agent writers at once, SIGKILLed
                        at random (--vaulttool <path> or $VAULTTOOL; --seconds, --seed)
    """

guard let suite = arguments.first else {
    print(usage)
    exit(64)
}

let started = now()
let tally: Tally
switch suite {
case "crash-points": tally = CrashPoints.run(mode)
case "kill-loop":
    tally = KillLoop.run(
        mode,
        kills: option("--kills").flatMap(Int.init),
        seed: option("--seed").flatMap(UInt64.init) ?? 2
    )
case "child-kill-loop": KillLoop.child(directory: arguments[1])
case "power-loss": tally = PowerLoss.run(mode, shim: option("--shim") ?? "/tmp/vault_shim.so")
case "child-power-loss":
    PowerLoss.child(directory: arguments[1], mode: mode, format: Format(rawValue: option("--format") ?? "3") ?? .v3)
case "io-errors": tally = IOErrors.run(mode)
case "concurrency": tally = Concurrency.run(mode)
case "child-increment":
    Concurrency.incrementer(directory: arguments[1], worker: Int(arguments[2])!, count: Int(arguments[3])!)
case "child-reader": Concurrency.reader(directory: arguments[1])
case "child-hold-lock": Concurrency.holdLock(directory: arguments[1])
case "tamper": tally = Tamper.run(mode, fixtures: option("--fixtures") ?? "Fixtures/v1")
case "tamper-v3": tally = Tamper3.run(mode)
case "tamper-keyholder": tally = KeyHolderTamper.run(mode, tool: option("--vaulttool"))
case "tamper-keyholder-v3": tally = KeyHolderTamper3.run(mode, tool: option("--vaulttool"))
case "hygiene": tally = Hygiene.run(mode, fixtures: option("--fixtures") ?? "Fixtures/v1")
case "sync": tally = Sync.run(mode)
case "sync-two-way": tally = SyncTwoWay.run(mode)
case "child-git-merge": Sync.mergeDriver(Array(arguments.dropFirst()))
case "many-writers":
    tally = ManyWriters.run(mode, tool: option("--vaulttool"), seed: option("--seed").flatMap(UInt64.init) ?? 11)
case "child-many-library": ManyRoles.library(directory: arguments[1], name: arguments[2])
case "child-many-command":
    ManyRoles.command(directory: arguments[1], kind: arguments[2], name: arguments[3], tool: arguments[4])
default:
    print(usage)
    exit(64)
}
print(String(format: "TIME \(suite) %.1f s", now() - started))
exit(tally.failures.isEmpty ? 0 : 1)
