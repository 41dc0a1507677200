#!/usr/bin/env python3
"""Times vaulttool list, list --json and import at 10,000 items (see scripts/bench-list-import.sh)."""

import argparse
import csv
import os
import statistics
import subprocess
import time

N = 10000


def timed(cmd):
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(cmd)}")
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--work", required=True)
    p.add_argument("--runs", type=int, default=11)
    p.add_argument("--vault-bench", required=True)
    p.add_argument("tools", nargs="+", help="name=path of a vaulttool")
    args = p.parse_args()
    tools = dict(t.split("=", 1) for t in args.tools)
    w = args.work
    # The rollback records of the scratch vaults stay in the scratch folder, not in the user's state.
    os.environ["XDG_STATE_HOME"] = os.path.join(w, "state")
    pw = os.path.join(w, "pw")
    with open(pw, "w") as f:
        f.write("bench password\n")
    first = next(iter(tools.values()))
    big, empty_cheap, empty_floor = (os.path.join(w, n) for n in ["big.vault", "empty-cheap.vault", "empty-floor.vault"])
    subprocess.run([args.vault_bench, "make", "--n", str(N), "--kdf", "8/1/1", "--password-file", pw, big], check=True)
    subprocess.run([args.vault_bench, "make", "--n", "0", "--kdf", "8/1/1", "--password-file", pw, empty_cheap], check=True)
    subprocess.run([first, "create", "--password-file", pw, "--kdf-memory", "19456", "--kdf-iterations", "2",
                    "--kdf-lanes", "1", empty_floor], check=True, stdout=subprocess.DEVNULL)
    rows = os.path.join(w, "rows.csv")
    with open(rows, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["class", "service", "account", "label", "secret"])
        for i in range(N):
            out.writerow(["genericPassword", f"svc-{i:05d}.example", f"account-{i:05d}", f"Item {i}", f"secret-{i:05d}"])
    target = os.path.join(w, "import.vault")

    ops = {
        "list": (lambda vt: [vt, "list", "--password-file", pw, big], lambda vt: [vt, "list", "--password-file", pw, empty_cheap]),
        "list --json": (lambda vt: [vt, "list", "--json", "--password-file", pw, big],
                        lambda vt: [vt, "list", "--json", "--password-file", pw, empty_cheap]),
        "import 10,000 CSV rows": (lambda vt: [vt, "import", "--password-file", pw, "--from", "csv", rows, target],
                                   lambda vt: [vt, "list", "--password-file", pw, empty_floor]),
    }
    times = {(name, op, part): [] for name in tools for op in ops for part in ("full", "base")}
    for _ in range(args.runs):
        for op, (full, base) in ops.items():
            for name, vt in tools.items():
                # A new empty vault each time: a copy of one would carry the same vault ID, and the
                # rollback check (Spec/rollback.md) would then refuse the second import into it.
                if os.path.exists(target):
                    os.remove(target)
                subprocess.run([first, "create", "--password-file", pw, "--kdf-memory", "19456",
                                "--kdf-iterations", "2", "--kdf-lanes", "1", target],
                               check=True, stdout=subprocess.DEVNULL)
                times[(name, op, "full")].append(timed(full(vt)))
                times[(name, op, "base")].append(timed(base(vt)))
    print(f"{N:,} items, {args.runs} runs, interleaved; median / min in ms; beyond = median(full) - median(baseline)\n")
    print("| operation | vaulttool | full | baseline (KDF, start) | beyond the baseline |")
    print("|---|---|---|---|---|")
    for op in ops:
        for name in tools:
            full, base = times[(name, op, "full")], times[(name, op, "base")]
            beyond = statistics.median(full) - statistics.median(base)
            print(f"| {op} | {name} | {statistics.median(full) * 1000:.1f} / {min(full) * 1000:.1f} | "
                  f"{statistics.median(base) * 1000:.1f} / {min(base) * 1000:.1f} | {beyond * 1000:.1f} |")


if __name__ == "__main__":
    main()
