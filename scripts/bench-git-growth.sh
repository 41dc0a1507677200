#!/usr/bin/env bash
# How much a team vault's git repository grows per one-item commit (issue 21; BENCHMARKS.md,
# "git history growth"), measured with real git as a team uses it:
#
#   scripts/bench-git-growth.sh [--items N] [--commits K] [--create-option OPT]...
#
# 1. imports N generic passwords into a new vault (KDF 19456 KiB/1/1, the cheapest allowed) and
#    commits it to a new git repository; `git gc`, then the pack size;
# 2. K times: `vaulttool set` replaces the secret of one existing item (a different one each
#    time, spread over the vault), then `git commit -a`;
# 3. `git gc` again, then the pack size. Growth per commit = (after − before) ÷ K.
#
# Prints one line per measure and a final `result:` line (key=value) that BENCHMARKS.md quotes.
# VAULTTOOL names the binary to measure (default: scripts/build-release.sh's, built if missing);
# --create-option passes an option to `vaulttool import --create` (for example a format version,
# to compare writers in one run). Needs git.
set -euo pipefail
cd "$(dirname "$0")/.."
items=10000
commits=10
create_options=()
while (($#)); do
    case "$1" in
        --items) items=$2; shift 2 ;;
        --commits) commits=$2; shift 2 ;;
        --create-option) create_options+=("$2"); shift 2 ;;
        *) echo "usage: $0 [--items N] [--commits K] [--create-option OPT]..." >&2; exit 64 ;;
    esac
done
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
secret() { head -c 24 /dev/urandom | base64; }

# The vault: N items of about the size people store (a 32-character secret, a short label).
{
    echo "service,account,label,secret"
    for ((i = 0; i < items; i++)); do
        printf 'svc-%06d,deploy,Service %d,%s\n' "$i" "$i" "$(secret)"
    done
} > "$work/items.csv"
repo="$work/repo"
mkdir "$repo"
git -C "$repo" init -q
git -C "$repo" config user.name bench
git -C "$repo" config user.email bench@example.invalid
git -C "$repo" config gc.auto 0
"$tool" import --create --from csv --password-file "$work/password" --kdf-memory 19456 \
    --kdf-iterations 2 --kdf-lanes 1 "${create_options[@]}" "$work/items.csv" "$repo/team.vault" > /dev/null
git -C "$repo" add team.vault
git -C "$repo" commit -q -m "the team vault"
git -C "$repo" gc -q
pack_kib() { git -C "$repo" count-objects -v | awk '$1 == "size-pack:" { print $2 }'; }
before=$(pack_kib)
file_bytes=$(stat -c %s "$repo/team.vault")

# K one-item commits: each rotates the secret of another item.
step=$((items / commits > 0 ? items / commits : 1))
for ((k = 0; k < commits; k++)); do
    n=$(((k * step + step / 2) % items))
    secret | "$tool" set --password-file "$work/password" --service "$(printf 'svc-%06d' "$n")" \
        --account deploy --trim-newline "$repo/team.vault" > /dev/null
    git -C "$repo" commit -q -a -m "rotate svc-$n"
done
git -C "$repo" gc -q
after=$(pack_kib)
final_bytes=$(stat -c %s "$repo/team.vault")
growth=$(((after - before) * 1024 / commits))
echo "items:                    $items"
echo "vault file:               $file_bytes bytes, after the commits $final_bytes bytes"
echo "pack after the first commit: $before KiB"
echo "pack after $commits more commits: $after KiB"
echo "growth per one-item commit: $growth bytes ($(awk -v g="$growth" -v f="$file_bytes" \
    'BEGIN { printf "%.1f", 100 * g / f }') % of the file)"
echo "result: items=$items commits=$commits file_bytes=$file_bytes growth_per_commit_bytes=$growth"
