#!/usr/bin/env bash
# Builds and runs Tests/AppStyleTests the way an app outside this package would: in a throwaway
# package that depends on this one by path. Inside this package a test target can still reach
# `package` declarations; from outside only the public API is visible, so a type an app needs that
# was narrowed to `package` fails here and nowhere else.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
identity=$(basename "$root" | tr '[:upper:]' '[:lower:]')
work=$(mktemp -d /tmp/vault-outside.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Tests/AppStyleTests"
cp "$root"/Tests/AppStyleTests/*.swift "$work/Tests/AppStyleTests/"
cat >"$work/Package.swift" <<MANIFEST
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "vault-outside-app",
    dependencies: [.package(path: "$root")],
    targets: [
        .testTarget(name: "AppStyleTests", dependencies: [.product(name: "VaultIO", package: "$identity")])
    ],
    swiftLanguageModes: [.v6]
)
MANIFEST
# The tests read README.md and the DocC article from this package.
VAULT_PACKAGE_ROOT="$root" swift test --package-path "$work" --scratch-path "$work/.build"
