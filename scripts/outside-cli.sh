#!/usr/bin/env bash
# Builds vaulttool the way a program outside this package would: its sources copied into a
# throwaway package that depends on this one by path, with VaultIO, VaultImport and VaultDelivery as
# its only libraries. Inside this package the tool could reach `package` declarations and VaultFormat
# directly; from outside it sees only the public API, so a CLI that grows library policy of its own (a
# `package` type, a private helper of the libraries) fails here, and nowhere else.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
identity=$(basename "$root" | tr '[:upper:]' '[:lower:]')
work=$(mktemp -d /tmp/vault-outside-cli.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Sources"
# Target names must be unique across the package graph: the copies get names of their own.
cp -R "$root/Sources/vaulttool" "$work/Sources/outside_vaulttool"
cp -R "$root/Sources/CVaultTool" "$work/Sources/COutsideTool"
# The Secret Service provider is the tool's too (not a product): it must build from VaultIO's public API.
cp -R "$root/Sources/VaultSecretService" "$work/Sources/OutsideSecretService"
cp -R "$root/Sources/CSecretService" "$work/Sources/COutsideSecretService"
mv "$work/Sources/COutsideSecretService/include/CSecretService.h" "$work/Sources/COutsideSecretService/include/COutsideSecretService.h"
sed -i 's/"CSecretService.h"/"COutsideSecretService.h"/' "$work/Sources/COutsideSecretService/"*.c
grep -rl '^import CSecretService$' "$work/Sources/OutsideSecretService" | xargs sed -i 's/^import CSecretService$/import COutsideSecretService/'
grep -rl '^import VaultSecretService$' "$work/Sources/outside_vaulttool" | xargs sed -i 's/^import VaultSecretService$/import OutsideSecretService/'
grep -rl '^import CVaultTool$' "$work/Sources/outside_vaulttool" | xargs sed -i 's/^import CVaultTool$/import COutsideTool/'
if grep -rn '^\(@[a-zA-Z_()]* \)*\(public \|internal \|package \)\?import VaultFormat' "$work/Sources/outside_vaulttool"; then
    echo "outside-cli: vaulttool imports VaultFormat; it must use VaultIO only" >&2
    exit 1
fi
cat >"$work/Package.swift" <<MANIFEST
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "vault-outside-cli",
    dependencies: [.package(path: "$root")],
    targets: [
        // As CVaultTool in Package.swift: its fatal-signal handler restores the terminal through CVaultRun.
        .target(
            name: "COutsideTool",
            dependencies: [.product(name: "VaultDelivery", package: "$identity")],
            cSettings: [.define("_GNU_SOURCE")]
        ),
        .target(name: "COutsideSecretService", cSettings: [.define("_GNU_SOURCE")]),  // dlopens its libraries
        .target(
            name: "OutsideSecretService",
            dependencies: [.product(name: "VaultIO", package: "$identity"), "COutsideSecretService"]
        ),
        .executableTarget(
            name: "outside_vaulttool",
            dependencies: [
                .product(name: "VaultIO", package: "$identity"), .product(name: "VaultImport", package: "$identity"),
                .product(name: "VaultDelivery", package: "$identity"), "COutsideTool", "OutsideSecretService",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
MANIFEST
swift build --package-path "$work" --scratch-path "$work/.build"
echo "outside-cli: vaulttool builds from the public API of VaultIO, VaultImport and VaultDelivery alone"
