// swift-tools-version:6.0
// vault: the benchmark driver. Run it with `make bench` (see BENCHMARKS.md); it imports the
// `_VaultHooks` (package internals made public for it) to build datasets and merges, and it
// builds in release mode, so it lives outside the main package.
import PackageDescription

let package = Package(
    name: "vault-bench",
    dependencies: [.package(name: "vault", path: "..")],
    targets: [
        // libargon2 itself, called directly, for the floor of an unlock.
        .systemLibrary(name: "CArgon2Floor", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        .executableTarget(
            name: "vault-bench",
            dependencies: [
                "CArgon2Floor",
                .product(name: "VaultFormat", package: "vault"),
                .product(name: "VaultIO", package: "vault"),
                .product(name: "_VaultHooks", package: "vault"),
            ]
        ),
        // Writers of one counter in many processes (issue 18): public API only, so that
        // scripts/bench-lock.sh can build it against an older revision too.
        .executableTarget(
            name: "vault-lock-bench",
            dependencies: [.product(name: "VaultIO", package: "vault")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
