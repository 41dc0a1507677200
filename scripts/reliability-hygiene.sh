#!/usr/bin/env bash
# Suite 8, process part: secret hygiene of a running vaulttool (RELIABILITY.md, suite 8).
#
# Usage: scripts/reliability-hygiene.sh [path/to/vaulttool]
#   default: $VAULTTOOL, else .build/debug/vaulttool or .build/release/vaulttool when no source is
#   newer, else a debug build into $RELIABILITY_ROOT_SCRATCH (default /tmp/rel-build-root).
# Checks: Dumpable 0 and core limit 0 in /proc/<pid> of a vaulttool blocked on its password;
# SIGSEGV and SIGABRT of it leave no core file (a control process with the same core settings
# does leave one, when core_pattern writes files); no password or secret in its argv or
# environment, nor in the output of failing commands; vault and lock files 0600 under umask 000;
# `strings` of the written vault shows no service, account, secret or password.
set -uo pipefail
cd "$(dirname "$0")/.."
tool="${1:-${VAULTTOOL:-}}"
if [ -z "$tool" ]; then
    # The binary `swift build` made (what `make test` leaves), unless a source is newer than it.
    for candidate in .build/debug/vaulttool .build/lean/release/vaulttool .build/release/vaulttool; do
        if [ -x "$candidate" ] && [ -z "$(find Sources -newer "$candidate" -name '*.swift' | head -1)" ]; then
            tool="$candidate"
            break
        fi
    done
fi
if [ -z "$tool" ]; then
    scratch="${RELIABILITY_ROOT_SCRATCH:-/tmp/rel-build-root}"
    swift build --scratch-path "$scratch" --product vaulttool >&2 || { echo "RESULT hygiene-process FAIL no vaulttool"; exit 1; }
    tool="$scratch/debug/vaulttool"
fi
tool="$(realpath "$tool")"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
work="$(mktemp -d /tmp/vault-rel-hygiene-XXXXXX)"
chmod 755 "$work"
cleanup() {
    for pid in $(jobs -p); do kill -9 "$pid" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
umask 000
password="hyg-pass-$RANDOM$RANDOM-x"
secret="hyg-secret-$RANDOM$RANDOM-y"
service="hyg-service-$RANDOM"
account="hyg-account-$RANDOM"
printf '%s' "$password" >"$work/pw"
printf '%s' "wrong-$password" >"$work/wrong"
printf '%s' "$secret" >"$work/secret"
chmod 600 "$work/pw" "$work/wrong" "$work/secret"
vault="$work/v.vault"
kdf=(--kdf-memory 19456 --kdf-iterations 2 --kdf-lanes 1)
echo "Secret hygiene (process): $tool"
"$tool" create "${kdf[@]}" --password-file "$work/pw" "$vault" >"$work/out.create" 2>&1 || fail "create failed: $(cat "$work/out.create")"
"$tool" set --password-file "$work/pw" --service "$service" --account "$account" --secret-file "$work/secret" "$vault" \
    >"$work/out.set" 2>&1 || fail "set failed: $(cat "$work/out.set")"
got="$("$tool" get --password-file "$work/pw" --service "$service" "$vault" 2>/dev/null)"
[ "$got" = "$secret" ] || fail "get did not return the secret"

# 1. File modes (umask 000).
# The lock file exists only while a writer holds it (Spec/cli.md, "The lock file"): none is left.
[ ! -e "$vault.lock" ] || fail "$vault.lock was left behind"
modes="$(stat -c '%n %a' "$vault" | sed "s|$work/||")"
echo "  modes (umask 000): $(echo "$modes" | tr '\n' ' ')"
while read -r name mode; do [ "$mode" = 600 ] || fail "$name has mode $mode"; done <<<"$modes"

# 2. strings of the vault.
hits=0
for needle in "$password" "$secret" "$service" "$account"; do
    if strings -n 4 "$vault" | grep -qF -- "$needle"; then fail "'$needle' in strings of the vault"; hits=$((hits + 1)); fi
    if grep -qaF -- "$needle" "$vault"; then fail "'$needle' in the vault's bytes"; hits=$((hits + 1)); fi
done
echo "  strings/grep of the vault for password, secret, service, account: $hits found"

# 3. A vaulttool blocked reading its password from a pipe: /proc, argv, environment, crash.
# /proc/<pid>/status has no "Dumpable" line. The kernel shows it another way: the /proc/<pid> files of
# a non-dumpable process belong to root. So the blocked vaulttool runs as nobody (setpriv), whose
# /proc files would otherwise belong to nobody; its directory is world-writable for the core file.
start_blocked() {  # starts `vaulttool get --password-stdin` on a FIFO nobody writes; sets pid and holder
    local dir="$1"
    mkdir -p "$dir"
    chmod 777 "$dir"
    mkfifo -m 666 "$dir/fifo"
    (cd "$dir" && ulimit -c unlimited && exec setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$tool" get --password-stdin --service "$service" "$vault" <"$dir/fifo" >/dev/null 2>"$dir/stderr") &
    pid=$!
    exec {holder}>"$dir/fifo"  # open the write end so the reader blocks instead of seeing EOF
    for _ in $(seq 100); do
        [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$tool" ] && break
        sleep 0.05
    done
    sleep 0.3  # let it reach the read of its password
}
crash_figures=""
for signal in SEGV ABRT; do
    start_blocked "$work/crash-$signal"
    if [ "$signal" = SEGV ]; then
        uid="$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")"
        owner="$(stat -c %u "/proc/$pid/status")"
        dumpable=$([ "$uid" = 65534 ] && [ "$owner" = 0 ] && echo 0 || echo "1 (uid $uid, /proc owner $owner)")
        corelimit="$(awk '/^Max core file size/ {print $5}' "/proc/$pid/limits" 2>/dev/null)"
        vmlck="$(awk '/^VmLck:/ {print $2 " " $3}' "/proc/$pid/status" 2>/dev/null)"
        echo "  running vaulttool (pid $pid, uid $uid): /proc/$pid owned by uid $owner => dumpable ${dumpable}; Max core file size: ${corelimit:-?}; VmLck: ${vmlck:-?}"
        [ "$dumpable" = 0 ] || fail "Dumpable is '$dumpable', not 0"
        [ "$corelimit" = 0 ] || fail "the core limit is '$corelimit', not 0"
        if tr '\0' '\n' <"/proc/$pid/cmdline" | grep -qF -e "$password" -e "$secret"; then fail "a secret is in argv"; fi
        if tr '\0' '\n' <"/proc/$pid/environ" | grep -qF -e "$password" -e "$secret"; then fail "a secret is in the environment"; fi
        echo "  argv: $(tr '\0' ' ' <"/proc/$pid/cmdline" | sed "s|$work|\$work|g; s|$tool|vaulttool|")"
    fi
    kill -s "$signal" "$pid"
    # Bounded: a process that survives its signal must fail this check, never hang CI.
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    if kill -0 "$pid" 2>/dev/null; then
        kill -s KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        fail "vaulttool survived SIG$signal for 5 s"
    fi
    wait "$pid" 2>/dev/null
    status=$?
    exec {holder}>&-
    sed -n 1,3p "$work/crash-$signal/stderr" | sed "s/^/    SIG$signal stderr: /"
    cores="$(find "$work/crash-$signal" -name 'core*' | wc -l)"
    crash_figures="$crash_figures SIG$signal: exit status $status, core files $cores;"
    [ "$cores" = 0 ] || fail "SIG$signal left a core file"
    if grep -qaF -e "$password" -e "$secret" "$work/crash-$signal/stderr"; then fail "the crash report of SIG$signal holds a secret"; fi
done
# Control: the same crash of a process that did not disable core dumps.
mkdir -p "$work/control"
chmod 777 "$work/control"
(cd "$work/control" && ulimit -c unlimited && exec setpriv --reuid=65534 --regid=65534 --clear-groups sleep 30) &
cpid=$!
sleep 0.2
control_owner="$(stat -c %u "/proc/$cpid/status")"
[ "$control_owner" = 65534 ] || fail "control: /proc of a dumpable process run as nobody is owned by $control_owner, so the dumpable check proves nothing"
kill -s SEGV "$cpid"
wait "$cpid" 2>/dev/null
control="$(find "$work/control" -name 'core*' | wc -l)"
echo "  forced crashes:$crash_figures control (sleep as nobody, ulimit -c unlimited, SIGSEGV): /proc owner $control_owner, core files $control (core_pattern: $(cat /proc/sys/kernel/core_pattern))"

# 4. Failing commands never print a secret.
leaks=0
run_failing() {  # name, then the command
    local name="$1"
    shift
    "$@" >"$work/fail.$name" 2>&1 </dev/null
    local status=$?
    [ "$status" -ne 0 ] || fail "'$name' did not fail"
    if grep -qaF -e "$password" -e "$secret" -e "wrong-$password" "$work/fail.$name"; then
        fail "'$name' printed a secret: $(cat "$work/fail.$name")"
        leaks=$((leaks + 1))
    fi
    printf '    %-22s exit %d: %s\n' "$name" "$status" "$(head -1 "$work/fail.$name" | cut -c1-90)"
}
echo "  failing commands (outputs grepped for the password, the wrong password and the secret):"
run_failing wrong-password "$tool" get --password-file "$work/wrong" --service "$service" "$vault"
run_failing no-match "$tool" get --password-file "$work/pw" --service nothing "$vault"
run_failing unknown-option "$tool" get --password-file "$work/pw" --bogus "$secret" "$vault"
cp "$vault" "$work/tampered.vault"
size=$(stat -c %s "$work/tampered.vault")
# Flip every bit of one byte near the end (inside the file MAC); writing a fixed value would
# leave the file unchanged whenever that byte already held it.
byte=$(od -An -tu1 -j $((size - 5)) -N1 "$work/tampered.vault" | tr -d ' ')
printf "\\$(printf '%03o' $((byte ^ 255)))" |
    dd of="$work/tampered.vault" bs=1 seek=$((size - 5)) conv=notrunc status=none
if cmp -s "$vault" "$work/tampered.vault"; then fail "the tampered copy equals the original"; fi
run_failing tampered-verify "$tool" verify --password-file "$work/pw" "$work/tampered.vault"
run_failing tampered-get "$tool" get --password-file "$work/pw" --service "$service" "$work/tampered.vault"
run_failing missing-vault "$tool" get --password-file "$work/pw" --service "$service" "$work/none.vault"
run_failing create-exists "$tool" create "${kdf[@]}" --password-file "$work/pw" "$vault"
echo "  secrets printed by failing commands: $leaks"
if [ "$failures" -eq 0 ]; then
    echo "RESULT hygiene-process PASS dumpable=$dumpable core_limit=$corelimit core_files=0 control_core_files=$control leaks=$leaks"
    exit 0
fi
echo "RESULT hygiene-process FAIL failures=$failures"
exit 1
