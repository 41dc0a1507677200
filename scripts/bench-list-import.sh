#!/usr/bin/env bash
# vault benchmarks: the list and import targets of issue 12 (BENCHMARKS.md, "list and import").
#
#   scripts/bench-list-import.sh [--before <git revision>] [--runs N]
#
# Builds vaulttool (release, static runtime, as scripts/bench.sh does) and vault-bench from this
# tree, and with --before also vaulttool from that revision (git archive into a scratch
# directory), then times in fresh processes, interleaved, the median and min of N runs:
#   - list and list --json of 10,000 items (KDF 8 KiB/1/1, the cheapest), minus the same command on
#     an empty vault with the same KDF ("beyond the KDF": process start, unlock and index included
#     in the baseline);
#   - import of 10,000 CSV rows into an empty vault (KDF 19456 KiB/2/1), minus list of that empty
#     vault (one KDF).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
before=""
runs=11
while (($#)); do
    case "$1" in
        --before) before=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        *) echo "usage: $0 [--before <rev>] [--runs N]" >&2; exit 64 ;;
    esac
done
work=$(mktemp -d /tmp/vault-bench-li.XXXXXX)
trap 'rm -rf "$work"' EXIT

scripts/install-deps.sh
echo "building (release)..." >&2
swift build -c release --scratch-path /tmp/vault-bench-li-build-root --product vaulttool --static-swift-stdlib >&2
swift build -c release --package-path Benchmarks --scratch-path /tmp/vault-bench-li-build-bench >&2
tools=("after=/tmp/vault-bench-li-build-root/release/vaulttool")
if [[ -n "$before" ]]; then
    mkdir -p "$work/before"
    git archive "$before" | tar -x -C "$work/before"
    (cd "$work/before" && swift build -c release --scratch-path /tmp/vault-bench-li-build-before \
        --product vaulttool --static-swift-stdlib >&2)
    tools=("before=/tmp/vault-bench-li-build-before/release/vaulttool" "${tools[@]}")
fi
python3 scripts/bench-peers/list_import.py --work "$work" --runs "$runs" \
    --vault-bench /tmp/vault-bench-li-build-bench/release/vault-bench "${tools[@]}"
