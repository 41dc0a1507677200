#!/usr/bin/env bash
# vault benchmarks: merge of two replicas (issue 10; BENCHMARKS.md, "Merge").
#
#   scripts/bench-merge.sh [--sizes 10000,100000] [--changes 100] [--runs 11]
#
# Builds vault-bench (release) and times VaultMerge.merge plus the encoding of the merged file,
# three-way and two-way, for replicas of N items that each make <changes> changes (edits, adds,
# deletions, a tenth of the edits on the same items). The files are opened before timing: add
# one KDF per file (the argon2-floor line of 'vault-bench inprocess').
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=10000,100000
changes=100
runs=11
while (($#)); do
    case "$1" in
        --sizes) sizes=$2; shift 2 ;;
        --changes) changes=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        *) echo "usage: $0 [--sizes N,N] [--changes K] [--runs R]" >&2; exit 64 ;;
    esac
done
work=$(mktemp -d /tmp/vault-bench-merge.XXXXXX)
trap 'rm -rf "$work"' EXIT
printf 'correct horse battery staple\n' > "$work/pw"
echo "building (release)..." >&2
swift build -c release --package-path Benchmarks --scratch-path /tmp/vault-bench-merge-build >&2
/tmp/vault-bench-merge-build/release/vault-bench merge --sizes "$sizes" --changes "$changes" --runs "$runs" \
    --dir "$work" --password-file "$work/pw" | python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    print(json.dumps(r))
    print("%-11s N=%-7d median %7.1f ms  min %7.1f ms  (%d conflicts, %d bytes)" % (
        r["op"], r["n"], r["median"] * 1000, r["min"] * 1000, r["conflicts"], r["bytes"]), file=sys.stderr)
'
