#!/bin/sh
# Checks the example systemd units of Examples/systemd with `systemd-analyze verify`.
# The units name /usr/local/bin/vaulttool and /usr/local/bin/myapp, which verify requires to be
# executables; copies of the units point at stand-ins in a temporary directory instead, and
# nothing else is changed. Skips (exit 0) where systemd-analyze is not installed; CI installs it
# through scripts/install-test-deps.sh.
set -eu
if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "verify-systemd-units: systemd-analyze is not installed; skipped" >&2
    exit 0
fi
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin" "$work/units"
for program in vaulttool myapp; do
    cp /bin/true "$work/bin/$program"
done
for unit in "$here"/Examples/systemd/*.service "$here"/Examples/systemd/*.socket; do
    sed "s|/usr/local/bin/|$work/bin/|g" "$unit" > "$work/units/$(basename "$unit")"
done
# --man=no: the units' manual pages are not installed; warnings (lines on stderr) fail the check.
output=$(cd "$work/units" && SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no ./*.socket ./*.service 2>&1) || {
    printf '%s\n' "$output" >&2
    exit 1
}
if [ -n "$output" ]; then
    printf '%s\n' "$output" >&2
    exit 1
fi
echo "verify-systemd-units: $(ls "$work/units" | wc -l) units verified" >&2
