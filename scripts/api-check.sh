#!/usr/bin/env bash
# vault: the public API of VaultFormat, VaultIO, VaultImport and VaultDelivery, as an outside package sees it, against the
# checked-in baseline (API/<Module>.txt). Fails with a diff when it changed: a change to the
# public API is a decision, recorded by regenerating the baseline in the same commit.
#
#   scripts/api-check.sh            compare (CI)
#   scripts/api-check.sh --update   rewrite API/*.txt (`make api-baseline`)
#
# The listing comes from `swift-api-digester -dump-sdk` over the built modules, reduced by
# scripts/api-listing.py to one line per declaration; `package` and `@_spi` declarations are left
# out, since no outside package can reach them.
set -euo pipefail
cd "$(dirname "$0")/.."
update=false
[[ "${1:-}" == "--update" ]] && update=true

swift build --target VaultImport >&2
swift build --target VaultDelivery >&2
bin=$(swift build --show-bin-path)
digester=$(dirname "$(readlink -f "$(command -v swift)")")/swift-api-digester
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p API
status=0
for module in VaultFormat VaultIO VaultImport VaultDelivery; do
    "$digester" -dump-sdk -module "$module" -I "$bin/Modules" -I Sources/CSodium -I Sources/CArgon2 -I Sources/CVaultXML/include -I "$bin/CVaultXML.build" \
        -I Sources/CVaultSys/include -I "$bin/CVaultSys.build" -I Sources/CVaultTPM/include -I "$bin/CVaultTPM.build" -I Sources/CVaultRun/include -I "$bin/CVaultRun.build" -avoid-location -avoid-tool-args -swift-only -o "$work/$module.json"
    python3 scripts/api-listing.py "$work/$module.json" "$module" >"$work/$module.txt"
    if $update; then
        cp "$work/$module.txt" "API/$module.txt"
        echo "wrote API/$module.txt ($(($(wc -l <"API/$module.txt") - 1)) declarations)"
    elif ! diff -u --label "API/$module.txt (baseline)" --label "$module (this build)" \
        "API/$module.txt" "$work/$module.txt"; then
        status=1
    fi
done
if [[ $status -ne 0 ]]; then
    echo "The public API changed (- baseline, + this build). If that is deliberate, run" >&2
    echo "'make api-baseline' and commit API/*.txt with the change; otherwise make the new" >&2
    echo "declarations 'package' (visible to this package's modules and tests only)." >&2
    exit 1
fi
$update || echo "public API matches API/VaultFormat.txt, API/VaultIO.txt, API/VaultImport.txt and API/VaultDelivery.txt"
