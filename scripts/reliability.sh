#!/usr/bin/env bash
# Runs every reliability suite (RELIABILITY.md) and prints their figures.
#
# Usage: scripts/reliability.sh [--quick|--full] [--no-fuzz] [suite...]
#   --quick   CI sizes, debug build (default)
#   --full    the published sizes, release build
#   suites    any of: crash-points kill-loop power-loss io-errors concurrency tamper hygiene sync git-flows
#             many-writers fuzz (tamper includes tamper-v3, tamper-keyholder and tamper-keyholder-v3, and sync
#             includes sync-two-way; each also runs alone) (default: all)
#             The suites that write run format 1.1 and format 3 (RELIABILITY.md).
# Environment: RELIABILITY_SCRATCH (SwiftPM scratch path, default /tmp/rel-build),
#   FUZZ_SECONDS (seconds per fuzz target; default 10 with --quick, 600 with --full),
#   VAULTTOOL (the vaulttool binary for the hygiene, tamper and many-writers suites; these otherwise
#   take .build/<debug|release>/vaulttool when no source is newer, else builds one into
#   RELIABILITY_ROOT_SCRATCH, default /tmp/rel-build-root).
# Exits 1 when any suite fails. The last lines are one RESULT line per suite.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=quick
fuzz=yes
suites=()
for argument in "$@"; do
    case "$argument" in
    --quick) mode=quick ;;
    --full) mode=full ;;
    --no-fuzz) fuzz=no ;;
    -h | --help)
        sed -n 2,16p "$0"
        exit 0
        ;;
    *) suites+=("$argument") ;;
    esac
done
[ "${#suites[@]}" -gt 0 ] || suites=(crash-points kill-loop power-loss io-errors concurrency tamper hygiene sync git-flows many-writers fuzz)
[ "$fuzz" = yes ] || suites=("${suites[@]/fuzz/}")
scripts/install-deps.sh
scratch="${RELIABILITY_SCRATCH:-/tmp/rel-build}"
# The suites' vaults keep their rollback records (Spec/rollback.md) here, not in the real home.
state_home=$(mktemp -d /tmp/vault-rel-state.XXXXXX) || exit 1
trap 'rm -rf "$state_home"' EXIT
export XDG_STATE_HOME="$state_home"
configuration=debug
[ "$mode" = full ] && configuration=release
started=$(date +%s)
echo "== reliability ($mode) on $(nproc) cores, Linux $(uname -r), /tmp on $(df -T /tmp | awk 'NR==2 {print $2}'), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "== building the suites ($configuration, $scratch)"
(cd Reliability && swift build -c "$configuration" --scratch-path "$scratch" --product vault-reliability >&2) || {
    echo "RESULT build FAIL"
    exit 1
}
bin="$scratch/$configuration/vault-reliability"
shim="$scratch/vault_shim.so"
# gcc, as the suite was written for; the Swift toolchain's clang where gcc is missing.
cc="${CC:-$(command -v gcc || command -v clang || echo cc)}"
"$cc" -O2 -Wall -Wextra -shared -fPIC -o "$shim" Reliability/shim/vault_shim.c -ldl || {
    echo "RESULT build-shim FAIL"
    exit 1
}
echo "== built in $(($(date +%s) - started)) s"
results=()
status=0
# The vaulttool that many-writers drives, of the build's configuration: $VAULTTOOL, else the
# package's own build when no source is newer than it, else a build into a scratch path of its own.
vaulttool_path() {
    if [ -n "${VAULTTOOL:-}" ]; then
        realpath "$VAULTTOOL"
        return
    fi
    local candidate=".build/$configuration/vaulttool"
    if [ -x "$candidate" ] && [ -z "$(find Sources -newer "$candidate" -name '*.swift' | head -1)" ]; then
        realpath "$candidate"
        return
    fi
    local root="${RELIABILITY_ROOT_SCRATCH:-/tmp/rel-build-root}"
    swift build -c "$configuration" --scratch-path "$root" --product vaulttool >&2 || return 1
    echo "$root/$configuration/vaulttool"
}
run() {  # suite name, then the command
    local name="$1"
    shift
    local log
    log="$(mktemp)"
    echo "== $name"
    local t0=$(date +%s)
    "$@" 2>&1 | tee "$log"
    local rc=${PIPESTATUS[0]}
    # A suite that runs both formats prints a RESULT line for each.
    local lines=()
    mapfile -t lines < <(grep -E '^RESULT ' "$log")
    [ "${#lines[@]}" -gt 0 ] || lines=("RESULT $name FAIL (no result line, exit $rc)")
    local last=$((${#lines[@]} - 1))
    [ "$rc" -eq 0 ] || { status=1; [[ "${lines[$last]}" == *FAIL* ]] || lines[$last]="${lines[$last]} (exit $rc)"; }
    lines[$last]="${lines[$last]} [$(($(date +%s) - t0)) s]"
    results+=("${lines[@]}")
    rm -f "$log"
}
flag="--$mode"
# Key holders without MK rewriting format 2.0 files, and committing in place in format-3 files
# (RELIABILITY.md, suite 6), also read by vaulttool.
run_keyholder() {  # suite name: tamper-keyholder or tamper-keyholder-v3
    if tool="$(vaulttool_path)"; then
        run "$1" "$bin" "$1" "$flag" --vaulttool "$tool"
    else
        results+=("RESULT $1 FAIL (no vaulttool: the build failed)")
        status=1
    fi
}
for suite in "${suites[@]}"; do
    case "$suite" in
    "") ;;
    power-loss) run power-loss "$bin" power-loss "$flag" --shim "$shim" ;;
    hygiene)
        run hygiene-library "$bin" hygiene "$flag" --fixtures Fixtures/v1
        run hygiene-process scripts/reliability-hygiene.sh
        ;;
    tamper)
        run tamper "$bin" tamper "$flag" --fixtures Fixtures/v1
        run tamper-v1.1 "$bin" tamper "$flag" --fixtures Fixtures/v1.1
        run tamper-v1.2 "$bin" tamper "$flag" --fixtures Fixtures/v1.2
        run tamper-v2 "$bin" tamper "$flag" --fixtures Fixtures/v2
        run tamper-v3 "$bin" tamper-v3 "$flag"
        run_keyholder tamper-keyholder
        run_keyholder tamper-keyholder-v3
        ;;
    tamper-keyholder | tamper-keyholder-v3) run_keyholder "$suite" ;;
    sync)
        run sync "$bin" sync "$flag"
        run sync-two-way "$bin" sync-two-way "$flag"
        ;;
    git-flows)
        run git-flows scripts/reliability-git.sh "$flag"
        run git-flows-v1.1 scripts/reliability-git.sh "$flag" --format 1.1
        ;;
    many-writers)
        if tool="$(vaulttool_path)"; then
            run many-writers "$bin" many-writers "$flag" --vaulttool "$tool"
        else
            results+=("RESULT many-writers FAIL (no vaulttool: the build failed)")
            status=1
        fi
        ;;
    fuzz)
        seconds="${FUZZ_SECONDS:-$([ "$mode" = full ] && echo 600 || echo 10)}"
        run fuzz bash -c "scripts/fuzz.sh $seconds && echo 'RESULT fuzz PASS seconds_per_target=$seconds' || { echo 'RESULT fuzz FAIL'; exit 1; }"
        ;;
    *) run "$suite" "$bin" "$suite" "$flag" ;;
    esac
done
echo "== summary ($mode, $(($(date +%s) - started)) s in all, including builds)"
for line in "${results[@]}"; do echo "$line"; done
exit "$status"
