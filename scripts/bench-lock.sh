#!/usr/bin/env bash
# vault benchmarks: writers of one counter in many processes (issue 18; BENCHMARKS.md, "Writers of one counter").
#
#   scripts/bench-lock.sh [--against REV] [--configs 8x8,4x1,1x8,1x1] [--rounds 3] [--seconds 8] [--items N]
#                         [--rollback]
#
# Builds vault-lock-bench (release) from this tree and, with --against, from REV as well: REV's
# files are extracted with `git archive` into /tmp/vault-bench-lock-src-<rev> (kept, so a rerun
# builds incrementally), this tree's Benchmarks/Sources/vault-lock-bench/ is copied in, and the
# target is added to REV's Benchmarks/Package.swift when it has none. The benchmark uses only
# VaultIO's public API (Keychain.update, Vault.open, VaultConfiguration), never the write lock's
# internals, so the same source builds against either lock.
#
# Each configuration PxT is P processes x T tasks, each task calling the async Keychain.update of
# one counter in a loop for --seconds, at the default lock timeout (5 s). The binaries run
# alternately, round after round (the order flips every round), so that load on this shared
# machine lands on both. Prints a markdown table (medians over the rounds; max: the largest of
# any round) with REV's column, this tree's, and their ratio (this tree / REV). Every round's JSON
# goes to bench-results/lock-wait.jsonl. Exits 1 when a counter disagrees with the acknowledged
# increments in any round.
#
# Environment: BENCH_LOCK_BUILD (scratch path prefix, default /tmp/vault-bench-lock-build).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
against=""
configs=8x8,4x1,1x8,1x1
rounds=3
seconds=8
extra=()
while (($#)); do
    case "$1" in
        --against) against=$2; shift 2 ;;
        --configs) configs=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --items) extra+=(--items "$2"); shift 2 ;;
        --rollback) extra+=(--rollback); shift ;;
        *)
            echo "usage: $0 [--against REV] [--configs PxT,...] [--rounds R] [--seconds S] [--items N] [--rollback]" >&2
            exit 64
            ;;
    esac
done
build=${BENCH_LOCK_BUILD:-/tmp/vault-bench-lock-build}

scripts/install-deps.sh
label="tree@$(git rev-parse --short HEAD)"
[[ -z "$(git status --porcelain -- Sources Package.swift)" ]] || label+="+changes"
echo "building $label (release)..." >&2
swift build -c release --package-path Benchmarks --scratch-path "$build-tree" --product vault-lock-bench >&2
binaries=("$label=$build-tree/release/vault-lock-bench")

if [[ -n "$against" ]]; then
    rev=$(git rev-parse --verify "$against^{commit}")
    short=${rev:0:7}
    src=/tmp/vault-bench-lock-src-$short
    if [[ ! -d "$src" ]]; then
        rm -rf "$src.partial"
        mkdir -p "$src.partial"
        git archive "$rev" | tar -x -C "$src.partial"
        mv "$src.partial" "$src"
    fi
    rm -rf "$src/Benchmarks/Sources/vault-lock-bench"
    mkdir -p "$src/Benchmarks/Sources/vault-lock-bench"
    cp -p Benchmarks/Sources/vault-lock-bench/*.swift "$src/Benchmarks/Sources/vault-lock-bench/"
    if ! grep -q '"vault-lock-bench"' "$src/Benchmarks/Package.swift"; then
        cat >> "$src/Benchmarks/Package.swift" <<'EOF'

// Added by scripts/bench-lock.sh: the benchmark of a newer tree, built against this revision.
package.targets.append(
    .executableTarget(name: "vault-lock-bench", dependencies: [.product(name: "VaultIO", package: "vault")])
)
EOF
    fi
    echo "building $short (release, in $src)..." >&2
    swift build -c release --package-path "$src/Benchmarks" --scratch-path "$build-$short" \
        --product vault-lock-bench >&2
    binaries=("$short=$build-$short/release/vault-lock-bench" "${binaries[@]}")
fi

mkdir -p bench-results
python3 - "$configs" "$rounds" "$seconds" "bench-results/lock-wait.jsonl" "${#extra[@]}" ${extra[@]+"${extra[@]}"} \
    "${binaries[@]}" <<'EOF'
import json, statistics, subprocess, sys, time

configs = [tuple(int(n) for n in c.split("x")) for c in sys.argv[1].split(",")]
rounds, seconds, jsonl = int(sys.argv[2]), sys.argv[3], sys.argv[4]
n_extra = int(sys.argv[5])
extra = sys.argv[6:6 + n_extra]
binaries = [arg.split("=", 1) for arg in sys.argv[6 + n_extra:]]
labels = [label for label, _ in binaries]
results = {(label, c): [] for label in labels for c in configs}
problems = []
began = time.time()


def load():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


load_before = load()
with open(jsonl, "w") as out:
    for r in range(rounds):
        for p, t in configs:
            order = binaries if r % 2 == 0 else binaries[::-1]
            for label, path in order:
                command = [path, "run", "--processes", str(p), "--tasks", str(t), "--seconds", seconds] + extra
                proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for line in proc.stderr.splitlines():
                    print(f"[round {r + 1}/{rounds}] {label}: {line}", file=sys.stderr)
                lines = proc.stdout.strip().splitlines()
                if proc.returncode not in (0, 2) or not lines:
                    problems.append(f"{label} {p}x{t} round {r + 1}: exit {proc.returncode}")
                    continue
                record = json.loads(lines[-1])
                record.update(tree=label, round=r + 1)
                out.write(json.dumps(record) + "\n")
                out.flush()
                results[(label, (p, t))].append(record)
                if not (record["counter_ok"] and record["values_ok"]):
                    problems.append(f"COUNTER MISMATCH: {label} {p}x{t} round {r + 1}: counter "
                                    f"{record['final_counter']} after {record['updates']} acknowledged increments")


def median(records, get):
    values = [get(x) for x in records if get(x) is not None]
    return statistics.median(values) if values else None


def fmt(value, unit=""):
    if value is None:
        return "-"
    if unit == "/s":
        return f"{value:,.0f}/s"
    if value >= 100:
        return f"{value:,.0f} ms"
    if value >= 10:
        return f"{value:.1f} ms"
    return f"{value:.2f} ms"


rows = [
    ("throughput (median)", lambda rs: median(rs, lambda x: x["throughput"]), "/s"),
    ("latency p50 (median)", lambda rs: median(rs, lambda x: x["latency_ms"] and x["latency_ms"]["p50"]), "ms"),
    ("latency p99 (median)", lambda rs: median(rs, lambda x: x["latency_ms"] and x["latency_ms"]["p99"]), "ms"),
    ("latency max (any round)",
     lambda rs: max([x["latency_ms"]["max"] for x in rs if x["latency_ms"]] or [None], key=lambda v: v or 0), "ms"),
    ("call to transform p99 (median)",
     lambda rs: median(rs, lambda x: x["to_transform_ms"] and x["to_transform_ms"]["p99"]), "ms"),
    ("transform to return p50 (median)",
     lambda rs: median(rs, lambda x: x.get("after_transform_ms") and x["after_transform_ms"]["p50"]), "ms"),
]
two = len(labels) == 2
header = ["P x T", "measure"] + labels + ([f"{labels[1]} / {labels[0]}"] if two else [])
print(f"\n{rounds} rounds of {seconds} s per cell, default lock timeout (5 s)"
      + (f", options {' '.join(extra)}" if extra else "") + f"; whole run {time.time() - began:.0f} s; "
      f"load average {load_before} before, {load()} after"
      + (f"; ratio = {labels[1]} / {labels[0]}: above 1 is better for throughput, below 1 for latencies"
         if len(labels) == 2 else "") + "\n")
print("| " + " | ".join(header) + " |")
print("|" + "---|" * len(header))
for c in configs:
    name = f"{c[0]} x {c[1]}"
    for title, get, unit in rows:
        values = [get(results[(label, c)]) if results[(label, c)] else None for label in labels]
        cells = [fmt(v, unit) for v in values]
        if two:
            a, b = values
            cells.append(f"{b / a:.2f}x" if a and b is not None else "-")
        print(f"| {name} | {title} | " + " | ".join(cells) + " |")
    for title, get in [
        ("timeouts (all rounds)", lambda rs: str(sum(x["timeouts"] for x in rs))),
        ("other errors (all rounds)", lambda rs: str(sum(x["errors"] for x in rs))),
        ("updates per task, min-max", lambda rs: f"{min(x['per_task_min'] for x in rs)}-{max(x['per_task_max'] for x in rs)}"),
        ("counter = acknowledged", lambda rs: f"{sum(x['counter_ok'] and x['values_ok'] for x in rs)}/{len(rs)} rounds"),
    ]:
        cells = [get(results[(label, c)]) if results[(label, c)] else "-" for label in labels]
        print(f"| {name} | {title} | " + " | ".join(cells) + (" | |" if two else " |"))
for problem in problems:
    print(problem, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
