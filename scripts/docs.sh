#!/usr/bin/env bash
# Builds the DocC catalogs of VaultFormat, VaultIO, VaultImport and VaultDelivery with the toolchain's docc (no plugin
# needed): symbol graphs from the compiler, then `docc convert --analyze`. Output: .build/docs/<Module>.
# Fails when docc reports any warning (an unresolved link, a missing parameter, ...): CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
graphs=$(mktemp -d)
trap 'rm -rf "$graphs"' EXIT
for target in VaultImport VaultDelivery; do
    swift build --target "$target" -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" >&2
done
for module in VaultFormat VaultIO VaultImport VaultDelivery; do
    mkdir -p "$graphs/$module" .build/docs
    cp "$graphs"/"$module"*.symbols.json "$graphs/$module/"
    docc convert "Sources/$module/Documentation.docc" --additional-symbol-graph-dir "$graphs/$module" \
        --output-path ".build/docs/$module" --fallback-display-name "$module" \
        --fallback-bundle-identifier "vault.$module" --analyze --warnings-as-errors >&2
    echo "built .build/docs/$module"
done
