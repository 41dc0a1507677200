#!/usr/bin/env bash
# Issue 21's targets, format 3 beside format 2.0 in one run (BENCHMARKS.md, "Format 3 beside
# format 2.0"):
#
#   scripts/bench-format3.sh [--sizes 10000,100000] [--rounds 15] [--growth N:COMMITS]...
#                            [--tail N:BYTES] [--smoke]
#
# Builds Benchmarks/ (vault-bench) in release mode and runs, in one process each:
# - `vault-bench formats`: at each size, a format-2.0 vault and a format-3 vault of the same items;
#   bytes per item; then, in rounds that alternate which format goes first, open + get (by primary
#   key, and through the public position(of:)), set one beside the floor of what its commit must
#   write, list and verify;
# - `vault-bench growth`: format 3 over many one-item commits (file growth, waste, compactions);
# - `vault-bench tail`: the open cost of a file with an uncommitted tail or a torn commit.
# Then prints the tables (scripts/bench-format3.py). git pack growth is scripts/bench-git-growth.sh.
#
# Environment: BENCH_WORK (scratch directory, on the file system to measure; default a fresh
# /tmp/vault-format3.XXXXXX, removed at the end), BENCH_OUT (the JSON lines; default
# bench-results/format3.jsonl), BENCH_BUILD (vault-bench's build folder; default
# /tmp/vault-bench-build-bench, the one scripts/bench.sh uses: a worktree of its own keeps it apart).
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=10000,100000
rounds=15
growth=()
tail_spec=100000:1048576
config=release
while (($#)); do
    case "$1" in
        --sizes) sizes=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --growth) growth+=("$2"); shift 2 ;;
        --tail) tail_spec=$2; shift 2 ;;
        --smoke) sizes=10,200; rounds=3; growth=(200:20); tail_spec=200:4096; config=debug; shift ;;
        *) echo "usage: $0 [--sizes N,...] [--rounds R] [--growth N:COMMITS]... [--tail N:BYTES] [--smoke]" >&2; exit 64 ;;
    esac
done
((${#growth[@]})) || growth=(10000:600)
work=${BENCH_WORK:-$(mktemp -d /tmp/vault-format3.XXXXXX)}
[[ -n "${BENCH_WORK:-}" ]] || trap 'rm -rf "$work"' EXIT
out=${BENCH_OUT:-bench-results/format3.jsonl}
mkdir -p "$(dirname "$out")"
scripts/install-deps.sh
build=${BENCH_BUILD:-/tmp/vault-bench-build-bench}
swift build -c "$config" --package-path Benchmarks --scratch-path "$build" >&2
bench=$build/$config/vault-bench
printf 'bench-password\n' > "$work/password"
export VAULT_TESTING=1  # the benchmark's cheap KDF (VaultConfiguration.insecureForTesting)
{
    echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'); $(nproc) CPUs; $(uname -r); load $(cut -d' ' -f1-3 /proc/loadavg)"
    "$bench" formats --sizes "$sizes" --rounds "$rounds" --dir "$work" --password-file "$work/password"
    for spec in "${growth[@]}"; do
        "$bench" growth --n "${spec%%:*}" --commits "${spec##*:}" --dir "$work" --password-file "$work/password"
    done
    "$bench" tail --n "${tail_spec%%:*}" --tail "${tail_spec##*:}" --rounds "$((rounds + 6))" --dir "$work" \
        --password-file "$work/password"
} > "$out"
head -n 1 "$out"
python3 scripts/bench-format3.py "$out"
