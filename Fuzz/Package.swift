// swift-tools-version:6.0
// vault: libFuzzer targets. Build with `make -C .. fuzz` (see Fuzz/README.md); they need
// -sanitize=fuzzer, so they live outside the main package.
import PackageDescription

let fuzzFlags: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "vault-fuzz",
    dependencies: [.package(name: "vault", path: "..")],
    targets: [
        .executableTarget(
            name: "FuzzHeader",
            dependencies: ["FuzzSupport", .product(name: "VaultFormat", package: "vault")],
            swiftSettings: fuzzFlags
        ),
        .executableTarget(
            name: "FuzzIndex",
            dependencies: ["FuzzSupport", .product(name: "VaultFormat", package: "vault")],
            swiftSettings: fuzzFlags
        ),
        .executableTarget(
            name: "FuzzAttributes",
            dependencies: ["FuzzSupport", .product(name: "VaultFormat", package: "vault")],
            swiftSettings: fuzzFlags
        ),
        .executableTarget(
            name: "FuzzOpen",
            dependencies: ["FuzzSupport", .product(name: "VaultFormat", package: "vault")],
            swiftSettings: fuzzFlags
        ),
        .executableTarget(
            name: "FuzzAgent",
            dependencies: ["FuzzSupport", .product(name: "VaultIO", package: "vault")],
            swiftSettings: fuzzFlags
        ),
        .target(name: "FuzzSupport"),
        .executableTarget(name: "FuzzSeeds", dependencies: [.product(name: "VaultFormat", package: "vault")]),
    ]
)
