#!/usr/bin/env bash
# CI: the release vaulttool that `make build` ships (scripts/build-release.sh) is built, hardened
# as stated and tested, so a link flag cannot break the binary packagers get unnoticed.
# Checks: position independent, full RELRO (BIND_NOW), a stack that is not executable, no RUNPATH,
# packed relative relocations, no exported symbols, no symbol table, libstdc++ linked in, at most
# 24 MiB (issue 24); then runs the CLI test suite against it (VAULTTOOL=... swift test).
# Usage: scripts/release-check.sh   (after `swift build --build-tests`)
set -euo pipefail
cd "$(dirname "$0")/.."
tool="$(scripts/build-release.sh)"
fail() {
    echo "release-check: $tool: $*" >&2
    exit 1
}
dynamic="$(readelf -d "$tool")"
grep -q 'Flags: .*PIE' <<<"$dynamic" || fail "not a position-independent executable"
grep -q 'BIND_NOW' <<<"$dynamic" || fail "no BIND_NOW (full RELRO)"
segments="$(readelf -lW "$tool")"
grep -q GNU_RELRO <<<"$segments" || fail "no GNU_RELRO segment"
grep -E 'GNU_STACK' <<<"$segments" | grep -qv 'RWE' || fail "an executable stack"
grep -q '(RELR)' <<<"$dynamic" || fail "relative relocations not packed (DT_RELR)"
# The dynamic symbols it defines: a handful the C runtime needs, not the 4,280 of --export-dynamic.
exported=$(readelf --dyn-syms -W "$tool" | awk '$7 != "UND" && $8 != "" && NR > 3' | wc -l)
((exported < 50)) || fail "$exported dynamic symbols exported"
! readelf -SW "$tool" | grep -q ' \.symtab ' || fail "not stripped"
! grep -qE 'RUNPATH|RPATH' <<<"$dynamic" || fail "has a RUNPATH: the loader would search beside the binary"
! grep -q 'libstdc++' <<<"$dynamic" || fail "loads libstdc++.so (it should be linked in)"
size=$(stat -c %s "$tool")
((size <= 24 * 1024 * 1024)) || fail "$size bytes, more than 24 MiB"
"$tool" --version >/dev/null || fail "--version failed"
echo "release-check: $tool: PIE, full RELRO, NX stack, RELR, no RUNPATH, $exported exported symbols," \
    "stripped, libstdc++ linked in, $((size / 1000000)) MB" >&2
VAULTTOOL="$tool" swift test --skip-build --filter vaulttoolTests
