// swift-tools-version:6.0
// vault: the reliability suites (crash points, kill loop, power loss, I/O errors, concurrency,
// tamper matrix, secret hygiene, sync, many writers). A separate package, like Fuzz/, so that the root package stays
// as it is; run them with scripts/reliability.sh (see RELIABILITY.md).
import PackageDescription

let package = Package(
    name: "vault-reliability",
    dependencies: [.package(name: "vault", path: "..")],
    targets: [
        .executableTarget(
            name: "vault-reliability",
            dependencies: [
                .product(name: "VaultIO", package: "vault"),
                .product(name: "VaultFormat", package: "vault"),
                // Package internals made public for the suites (Sources/_VaultHooks/README.md).
                .product(name: "_VaultHooks", package: "vault"),
            ]
        )
    ],
    swiftLanguageModes: [.v5]  // harness code: fork, signals, C globals such as stdout
)
