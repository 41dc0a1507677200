#!/usr/bin/env bash
# vault benchmarks: `make bench` (everything, ~10 minutes) or `make bench-smoke` (our side, tiny N, seconds).
#
#   scripts/bench.sh [--smoke]
#
# Builds vaulttool and Benchmarks/ (vault-bench) in release mode, installs the peers
# (Debian: keepassxc, sqlcipher; PyPI into a throwaway venv under /tmp: pykeepass,
# keyrings.cryptfile, matplotlib), and runs scripts/bench-peers/bench.py, which prints
# the tables and writes bench-results/{results.json,table.md,bench.png}. See BENCHMARKS.md.
#
# Environment: BENCH_OUT (default bench-results), BENCH_WORK (scratch directory, on the
# file system to measure; default a fresh /tmp/vault-bench.XXXXXX, removed at the end),
# BENCH_RUNS (default 5), BENCH_SIZES, BENCH_PEER_SIZES, BENCH_VENV (default /tmp/vault-bench-venv),
# BENCH_VAULTTOOL (a vaulttool binary to measure instead of building one).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

smoke=false
[[ "${1:-}" == "--smoke" ]] && smoke=true

out=${BENCH_OUT:-$root/bench-results}
work=${BENCH_WORK:-$(mktemp -d /tmp/vault-bench.XXXXXX)}
[[ -n "${BENCH_WORK:-}" ]] || trap 'rm -rf "$work"' EXIT
runs=${BENCH_RUNS:-5}
venv=${BENCH_VENV:-/tmp/vault-bench-venv}
# vaulttool keeps its rollback record (Spec/cli.md 4.11) under XDG_STATE_HOME: keep it in the scratch directory.
export XDG_STATE_HOME="$work/state"

if $smoke; then
    # Debug builds share nothing with `make test`'s, but compile faster than release; the smoke
    # checks that every measurement still runs, not how fast.
    config=debug
    sizes=${BENCH_SIZES:-10,200}
    runs=${BENCH_RUNS:-3}
else
    config=release
    sizes=${BENCH_SIZES:-100,1000,10000,100000}
fi
peer_sizes=${BENCH_PEER_SIZES:-100,1000,10000}

scripts/install-deps.sh
if ! $smoke; then
    need=()
    command -v sqlcipher >/dev/null || need+=(sqlcipher)
    command -v keepassxc-cli >/dev/null || need+=(keepassxc)
    if ((${#need[@]})); then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
    fi
    if [[ ! -x "$venv/bin/python" ]]; then
        python3 -m venv "$venv"
    fi
    "$venv/bin/pip" install -q --disable-pip-version-check pykeepass keyrings.cryptfile matplotlib
fi

echo "building ($config)..." >&2
# The release vaulttool is the one `make build` ships (scripts/build-release.sh); BENCH_VAULTTOOL
# measures another binary instead (an older build, for a side-by-side run).
if [[ -n "${BENCH_VAULTTOOL:-}" ]]; then
    vaulttool=$BENCH_VAULTTOOL
elif [[ "$config" == release ]]; then
    vaulttool=$(scripts/build-release.sh)
else
    swift build -c "$config" --scratch-path /tmp/vault-bench-build-root --product vaulttool >&2
    vaulttool=/tmp/vault-bench-build-root/$config/vaulttool
fi
swift build -c "$config" --package-path Benchmarks --scratch-path /tmp/vault-bench-build-bench >&2
vault_bench=/tmp/vault-bench-build-bench/$config/vault-bench

args=(--vaulttool "$vaulttool" --vault-bench "$vault_bench" --out "$out" --work "$work" --runs "$runs"
    --sizes "$sizes" --peer-sizes "$peer_sizes")
if $smoke; then
    python3 scripts/bench-peers/bench.py "${args[@]}" --smoke
else
    "$venv/bin/python" scripts/bench-peers/bench.py "${args[@]}" --python "$venv/bin/python"
fi
