#!/usr/bin/env bash
# vault benchmarks: the git-diff textconv driver at 10,000 items (BENCHMARKS.md, "git-diff").
#
#   scripts/bench-git-diff.sh [--runs N] [--items N]
#
# Builds vaulttool (release), imports N items (default 10,000) into a vault with the cheapest
# KDF a new vault may have (19456 KiB, 2 passes, 1 lane), and times in fresh processes the
# median and min of N runs (default 11) of: `git-diff` of that vault, `list` of it (for
# comparison), and `git-diff` of an empty vault with the same KDF (the baseline: process start
# and one KDF). Prints milliseconds.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=11
items=10000
while (($#)); do
    case "$1" in
        --runs) runs=$2; shift 2 ;;
        --items) items=$2; shift 2 ;;
        *) echo "usage: $0 [--runs N] [--items N]" >&2; exit 64 ;;
    esac
done
work=$(mktemp -d /tmp/vault-bench-gd.XXXXXX)
trap 'rm -rf "$work"' EXIT
export XDG_STATE_HOME="$work/state"
unset VAULT_AGENT_SOCK VAULTTOOL_DEVICE_SECRET_FILE

echo "building (release)..." >&2
swift build -c release --product vaulttool >&2
tool=$(swift build -c release --show-bin-path)/vaulttool
kdf=(--kdf-memory 19456 --kdf-iterations 2 --kdf-lanes 1)
printf 'correct horse battery staple\n' >"$work/pw"
python3 - "$work/items.json" "$items" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
items = [{"service": "svc%05d" % i, "account": "acct%d" % i, "label": "item %d" % i,
          "secret": "secret-%d-%s" % (i, "x" * 20)} for i in range(n)]
json.dump({"format": "vault-items", "version": 1, "items": items}, open(path, "w"))
PY
"$tool" import --create --password-file "$work/pw" "${kdf[@]}" --from json "$work/items.json" "$work/big.vault" >&2
"$tool" create --password-file "$work/pw" "${kdf[@]}" "$work/empty.vault" >&2

measure() { # label, command...
    local label=$1; shift
    local times=()
    for ((i = 0; i < runs; i++)); do
        local start end
        start=$(date +%s%N)
        "$@" >/dev/null
        end=$(date +%s%N)
        times+=($(((end - start) / 1000)))
    done
    python3 -c 'import statistics, sys
t = sorted(int(x) / 1000 for x in sys.argv[2:])
print("%-28s median %8.1f ms   min %8.1f ms" % (sys.argv[1], statistics.median(t), t[0]))' "$label" "${times[@]}"
}
measure "git-diff, $items items" "$tool" git-diff --password-file "$work/pw" "$work/big.vault"
measure "list, $items items" "$tool" list --password-file "$work/pw" "$work/big.vault"
measure "git-diff, empty (baseline)" "$tool" git-diff --password-file "$work/pw" "$work/empty.vault"
measure "git-diff, no credential" "$tool" git-diff "$work/big.vault"
