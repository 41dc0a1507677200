#!/usr/bin/env bash
# How much a team vault's git repository grows per one-item commit (issue 21; BENCHMARKS.md,
# "git history growth"), measured with real git as a team uses it, for format 3 and format 2.0
# side by side in one run:
#
#   scripts/bench-git-growth.sh [--items N] [--commits K] [--format 3|2.0|both] [--create-option OPT]...
#
# For each format (default both, format 2.0 first):
# 1. creates a vault (KDF 19456 KiB/2/1, the cheapest allowed): format 3 with `vaulttool create`,
#    format 2.0 with `vaulttool create --format 1.1` then `vaulttool migrate --to 2.0`; imports N
#    generic passwords into it and commits it to a new git repository; `git gc`, then the pack size;
# 2. K times: `vaulttool set` replaces the secret of one existing item (the same K items in both
#    formats, spread over the vault), then `git commit -a`;
# 3. `git gc` again, then the pack size. Growth per commit = (after − before) ÷ K.
#
# Prints one block per format and a `result:` line each (key=value) that BENCHMARKS.md quotes.
# VAULTTOOL names the binary to measure (default: scripts/build-release.sh's, built if missing);
# --create-option passes an option to `vaulttool create`. Needs git.
set -euo pipefail
cd "$(dirname "$0")/.."
items=10000
commits=10
formats=both
create_options=()
usage="usage: $0 [--items N] [--commits K] [--format 3|2.0|both] [--create-option OPT]..."
while (($#)); do
    case "$1" in
        --items) items=$2; shift 2 ;;
        --commits) commits=$2; shift 2 ;;
        --format) formats=$2; shift 2 ;;
        --create-option) create_options+=("$2"); shift 2 ;;
        *) echo "$usage" >&2; exit 64 ;;
    esac
done
case "$formats" in
    both) formats="2.0 3" ;;
    3 | 3.0) formats=3 ;;
    2.0) ;;
    *) echo "--format is 3, 2.0 or both, not '$formats'" >&2; exit 64 ;;
esac
command -v git >/dev/null || { echo "git is needed (apt-get install -y git)" >&2; exit 69; }
((items >= 1 && commits >= 1)) || { echo "--items and --commits must be at least 1" >&2; exit 64; }
tool=${VAULTTOOL:-}
if [[ -z "$tool" ]]; then
    tool=$(scripts/build-release.sh | tail -n 1)
fi
work=$(mktemp -d /tmp/vault-git-growth.XXXXXX)
trap 'rm -rf "$work"' EXIT
export XDG_STATE_HOME="$work/state"
printf 'bench-password\n' > "$work/password"
chmod 600 "$work/password"
kdf=(--kdf-memory 19456 --kdf-iterations 2 --kdf-lanes 1)
secret() { head -c 24 /dev/urandom | base64; }

# The vault's items: N of about the size people store (a 32-character secret, a short label).
head -c $((items * 24)) /dev/urandom | base64 -w 32 | head -n "$items" |
    awk 'BEGIN { print "service,account,label,secret" }
         { printf "svc-%06d,deploy,Service %d,%s\n", NR - 1, NR - 1, $0 }' > "$work/items.csv"

measure() {
    local format=$1
    local repo="$work/repo-$format"
    local vault="$repo/team.vault"
    mkdir "$repo"
    git -C "$repo" init -q
    git -C "$repo" config user.name bench
    git -C "$repo" config user.email bench@example.invalid
    git -C "$repo" config gc.auto 0
    if [[ "$format" == 3 ]]; then
        "$tool" create --password-file "$work/password" "${kdf[@]}" "${create_options[@]}" "$vault" > /dev/null
    else
        "$tool" create --format 1.1 --password-file "$work/password" "${kdf[@]}" "${create_options[@]}" \
            "$vault" > /dev/null
        "$tool" migrate --to 2.0 --password-file "$work/password" "${kdf[@]}" "$vault" > /dev/null
    fi
    "$tool" import --from csv --password-file "$work/password" "$work/items.csv" "$vault" > /dev/null
    git -C "$repo" add team.vault
    git -C "$repo" commit -q -m "the team vault"
    git -C "$repo" gc -q
    pack_kib() { git -C "$repo" count-objects -v | awk '$1 == "size-pack:" { print $2 }'; }
    local before file_bytes after final_bytes growth
    before=$(pack_kib)
    file_bytes=$(stat -c %s "$vault")

    # K one-item commits: each rotates the secret of another item.
    local step=$((items / commits > 0 ? items / commits : 1))
    for ((k = 0; k < commits; k++)); do
        local n=$(((k * step + step / 2) % items))
        secret | "$tool" set --password-file "$work/password" --service "$(printf 'svc-%06d' "$n")" \
            --account deploy --trim-newline "$vault" > /dev/null
        git -C "$repo" commit -q -a -m "rotate svc-$n"
    done
    git -C "$repo" gc -q
    after=$(pack_kib)
    final_bytes=$(stat -c %s "$vault")
    growth=$(((after - before) * 1024 / commits))
    echo "format:                   $format"
    echo "items:                    $items"
    echo "vault file:               $file_bytes bytes, after the commits $final_bytes bytes"
    echo "pack after the first commit: $before KiB"
    echo "pack after $commits more commits: $after KiB"
    echo "growth per one-item commit: $growth bytes ($(awk -v g="$growth" -v f="$file_bytes" \
        'BEGIN { printf "%.2f", 100 * g / f }') % of the file)"
    echo "result: format=$format items=$items commits=$commits file_bytes=$file_bytes" \
        "final_file_bytes=$final_bytes pack_before_kib=$before pack_after_kib=$after growth_per_commit_bytes=$growth"
    echo
}

for format in $formats; do
    measure "$format"
done
