#!/usr/bin/env bash
# The architecture's figures (issue 17), for a checkout: code lines per target, public
# declarations per module (API/*.txt), CLI files that import VaultFormat, `@_spi` in the shipping
# modules, and test files named after a source file. `duplicates` (the workplace tool, not part of
# this repository) gives the last figure: `cd Sources && duplicates --seconds 120`.
#
# Usage: scripts/measure-layout.sh [checkout]
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

echo "code lines (no blank or comment-only lines):"
for target in vaulttool VaultIO VaultFormat VaultDelivery VaultImport VaultSecretService _VaultHooks; do
    printf "  %-20s %s\n" "$target" \
        "$(find "Sources/$target" -name '*.swift' -print0 | xargs -0 cat | grep -cvE '^\s*$|^\s*//')"
done

echo "public declarations (API/*.txt):"
for listing in API/*.txt; do printf "  %-20s %s\n" "$(basename "$listing" .txt)" "$(wc -l <"$listing")"; done

printf "CLI files that import VaultFormat: %s\n" \
    "$(grep -rlE '^(@[a-zA-Z_()]* )*((public|internal|package) )?import VaultFormat' Sources/vaulttool | wc -l)"
printf "@_spi in VaultFormat and VaultIO: %s\n" "$(grep -rl '@_spi' Sources/VaultFormat Sources/VaultIO | wc -l)"

# A test file XTests.swift counts when X.swift is a source file; X+YTests.swift when X+Y.swift or
# X.swift is.
sources=$(find Sources -name '*.swift' -exec basename {} .swift \; | sort -u)
total=0
named=0
while read -r file; do
    base=$(basename "$file" .swift)
    subject=${base%Tests}
    total=$((total + 1))
    if grep -qxF "$subject" <<<"$sources" || grep -qxF "${subject%%+*}" <<<"$sources"; then
        named=$((named + 1))
    fi
done < <(find Tests -name '*Tests.swift')
printf "test files named after a source file: %s of %s\n" "$named" "$total"
