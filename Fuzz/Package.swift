// swift-tools-version:6.0
// vault: libFuzzer targets. Build with `make -C .. fuzz` (see Fuzz/README.md); they need
// -sanitize=fuzzer, so they live outside the main package.
import PackageDescription

let format: Target.Dependency = .product(name: "VaultFormat", package: "vault")
// Package internals made public for fuzzing (Sources/_VaultHooks/README.md).
let hooks: Target.Dependency = .product(name: "_VaultHooks", package: "vault")
let fuzzFlags: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "vault-fuzz",
    dependencies: [.package(name: "vault", path: "..")],
    targets: [
        .executableTarget(
            name: "FuzzHeader",
            dependencies: ["FuzzSupport", format, hooks],
            swiftSettings: fuzzFlags
        ),
        .executableTarget(
            name: "FuzzIndex",
            dependencies: ["FuzzSupport", format, hooks],
            swiftSettings: fuzzFlags
        ),
        .executableTarget(
            name: "FuzzAttributes",
            dependencies: ["FuzzSupport", format, hooks],
            swiftSettings: fuzzFlags
        ),
        .executableTarget(
            name: "FuzzOpen",
            dependencies: ["FuzzSupport", format],
            swiftSettings: fuzzFlags
        ),
        .executableTarget(
            name: "FuzzAgent",
            dependencies: ["FuzzSupport", .product(name: "VaultIO", package: "vault"), hooks],
            swiftSettings: fuzzFlags
        ),
        .executableTarget(
            name: "FuzzSecretService",
            dependencies: ["FuzzSupport", "CSystemdBus", .product(name: "VaultIO", package: "vault"), hooks],
            swiftSettings: fuzzFlags
        ),
        // sd-bus for FuzzSecretService's client connection (libsystemd-dev).
        .systemLibrary(name: "CSystemdBus", pkgConfig: "libsystemd"),
        .target(name: "FuzzSupport"),
        .executableTarget(name: "FuzzSeeds", dependencies: [format, hooks]),
    ]
)
