// swift-tools-version:6.0
// vault: the benchmark driver. Run it with `make bench` (see BENCHMARKS.md); it imports the
// libraries with `@_spi(Testing)` to make vaults with a cheap KDF, so it lives outside the main package.
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
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
