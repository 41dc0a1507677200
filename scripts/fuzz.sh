#!/usr/bin/env bash
# Runs every libFuzzer target for a time budget and prints executions per target.
#
# Usage: scripts/fuzz.sh [seconds-per-target]   (default 60; CI uses a short smoke)
# Seeds come from Fixtures/ (FuzzSeeds) and Fuzz/seeds/<target>/, crashers found earlier from Fuzz/regressions/<target>/,
# which every run replays first. New crashers land in Fuzz/artifacts/<target>/; copy them into
# Fuzz/regressions/<target>/ once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
scripts/install-deps.sh
targets=(FuzzHeader FuzzIndex FuzzAttributes FuzzOpen FuzzAgent FuzzSecretService)
work="${FUZZ_WORK:-$(mktemp -d)}"
(cd Fuzz && swift build -c release --product FuzzSeeds >&2)
"$(cd Fuzz && swift build -c release --show-bin-path)/FuzzSeeds" "$work/seeds" Fixtures/v1 >&2
# Format 1.2 headers (recipient stanzas) seed the header target too; their file names differ from v1's.
"$(cd Fuzz && swift build -c release --show-bin-path)/FuzzSeeds" "$work/seeds" Fixtures/v1.2 >&2
status=0
printf '%-16s %12s %8s %s\n' target executions seconds result
for target in "${targets[@]}"; do
    (cd Fuzz && swift build -c release --scratch-path .build-fuzz --product "$target" \
        -Xswiftc -sanitize=fuzzer,address >&2)
    mkdir -p "$work/corpus/$target" "$work/seeds/$target" "Fuzz/artifacts/$target" "Fuzz/regressions/$target"
    log="$work/$target.log"
    set +e
    # FuzzSecretService calls a provider over a real bus: a private one, for this run only.
    # Its provider answers within 10 s or the target reports it; the others get 10 s per input.
    wrapper=()
    timeout=10
    [ "$target" = FuzzSecretService ] && wrapper=(dbus-run-session -- env FUZZ_SS_PRIVATE_BUS=1) && timeout=30
    [ -d "Fuzz/seeds/$target" ] && cp Fuzz/seeds/"$target"/* "$work/seeds/$target/"
    "${wrapper[@]}" Fuzz/.build-fuzz/release/"$target" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 \
        -artifact_prefix="Fuzz/artifacts/$target/" -print_final_stats=1 \
        "$work/corpus/$target" "$work/seeds/$target" "Fuzz/regressions/$target" >"$log" 2>&1
    rc=$?
    set -e
    runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo 0)
    result=ok
    if [ "$rc" -ne 0 ]; then
        result="FAILED (exit $rc; see $log and Fuzz/artifacts/$target)"
        status=1
        tail -30 "$log" >&2
    fi
    printf '%-16s %12s %8s %s\n' "$target" "$runs" "$seconds" "$result"
done
exit "$status"
