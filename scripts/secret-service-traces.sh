#!/usr/bin/env bash
# The same real-client runs against gnome-keyring (the reference) and vaulttool secret-service,
# each traced with dbus-monitor, and the traces compared (issue 23):
#   scripts/secret-service-traces.sh [CHECK...]   (default: secret-tool keyring secretstorage alias)
#
# scripts/secret-service-clients.sh runs each check on a private bus with TRACE=1;
# scripts/secret-service-traces.py reduces each trace to the calls the client made, the answers it
# got and the signals it saw, and lists where vaulttool's differ from gnome-keyring's. Exit 1 when
# a check fails against either provider or its traces differ beyond the known differences.
# dh-only, concurrency and robustness are left out of the default: their calls depend on chance
# (sessions opened until one has a leading zero byte, threads); attributes too, because after its
# twin case (CreateItem without replace, R-SS-25: one item per identity, where gnome-keyring makes
# a second item) the client works on other objects.
# Environment: VAULTTOOL as for secret-service-clients.sh; OUT keeps the traces (default: a
# temporary directory, removed unless KEEP=1).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
checks=("$@")
[ ${#checks[@]} -gt 0 ] || checks=(secret-tool keyring secretstorage alias)
work="$(mktemp -d "${TMPDIR:-/tmp}/vault-ss-traces.XXXXXX")"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
export OUT="${OUT:-$work}" TRACE=1
mkdir -p "$OUT"
for provider in gnome-keyring vaulttool; do
    "$here/secret-service-clients.sh" --provider "$provider" --quick "${checks[@]}" >"$OUT/clients-$provider.log" 2>&1 || {
        tail -n 20 "$OUT/clients-$provider.log" >&2
        echo "secret-service-traces: the clients failed against $provider" >&2
        exit 1
    }
done
rc=0
for check in "${checks[@]}"; do
    echo "== $check"
    python3 "$here/secret-service-traces.py" "$OUT/trace-gnome-keyring-$check.txt" \
        "$OUT/trace-vaulttool-$check.txt" || rc=1
done
exit $rc
