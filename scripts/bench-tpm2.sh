#!/usr/bin/env bash
# vault benchmarks: what opening a vault costs through a TPM2 keyslot (issue 25; BENCHMARKS.md,
# "Opening with the TPM").
#
#   scripts/bench-tpm2.sh [N]      (default 20 opens of each kind)
#
# One vault with a password keyslot at the default Argon2id cost of new vaults, a key-file
# keyslot and a TPM2 keyslot bound to PCR 7, and a second vault whose TPM2 keyslot also needs a
# PIN, on a fresh swtpm.
# Runs `vaulttool get` N times with each credential, interleaved round-robin in one run so that
# load on this shared machine lands on all of them, and prints the median wall time of each and
# its ratio to the password's. swtpm is a software TPM: a hardware TPM is slower (its ECC key
# generation for the parent alone is 20 to 100 ms), so these ratios are a lower bound.
#
# Environment: VAULTTOOL (default .build/debug/vaulttool).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20}
tool=$(readlink -f "${VAULTTOOL:-.build/debug/vaulttool}")
t=$(mktemp -d)
trap 'kill "$tpm_pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$t"' EXIT
mkdir "$t/tpm"
swtpm socket --tpm2 --tpmstate dir="$t/tpm" --server type=unixio,path="$t/tpm/s" \
    --ctrl type=unixio,path="$t/tpm/s.ctrl" --flags not-need-init,startup-clear >/dev/null 2>&1 &
tpm_pid=$!
for _ in $(seq 100); do [ -S "$t/tpm/s" ] && break; sleep 0.05; done
export VAULT_TPM2_TCTI="swtpm:path=$t/tpm/s" XDG_STATE_HOME="$t/state"
cd "$t"
printf 'bench password' >pw
printf '2468' >pin
head -c 32 /dev/urandom >key
for v in v.vault pin.vault; do
    "$tool" create --password-file pw "$v" >/dev/null
    printf 's3cret' | "$tool" set --password-file pw --service db --account app "$v" >/dev/null
done
"$tool" passwd --password-file pw --add-key-file key v.vault >/dev/null
"$tool" passwd --password-file pw --add-tpm2 --tpm2-pcrs 7 v.vault >/dev/null
VAULTTOOL_TPM2_PIN_FILE=pin "$tool" passwd --password-file pw --add-tpm2 --tpm2-pcrs 7 --tpm2-pin pin.vault \
    >/dev/null

kinds=(password key-file tpm2 tpm2-pin)
run() {
    case $1 in
        password) "$tool" get --password-file pw --service db v.vault ;;
        key-file) "$tool" get --key-file key --service db v.vault ;;
        tpm2) "$tool" get --tpm2 --service db v.vault ;;
        tpm2-pin) VAULTTOOL_TPM2_PIN_FILE=pin "$tool" get --tpm2 --service db pin.vault ;;
    esac
}
for kind in "${kinds[@]}"; do
    [ "$(run "$kind")" = s3cret ] || { echo "get with $kind did not print the secret" >&2; exit 1; }
    : >"$t/$kind.times"
done
for _ in $(seq "$n"); do
    for kind in "${kinds[@]}"; do
        start=$(date +%s%N)
        run "$kind" >/dev/null
        echo $((($(date +%s%N) - start) / 1000)) >>"$t/$kind.times"
    done
done
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
base=$(median "$t/password.times")
echo "| credential | median get (ms) | ratio to the password |"
echo "|---|---|---|"
for kind in "${kinds[@]}"; do
    m=$(median "$t/$kind.times")
    awk -v k="$kind" -v m="$m" -v b="$base" 'BEGIN { printf "| %s | %.1f | %.2fx |\n", k, m / 1000, m / b }'
done
