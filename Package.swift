// swift-tools-version:6.0
// vault: a portable, file-backed keychain for Swift.
import PackageDescription

let package = Package(
    name: "vault",
    products: [
        .library(name: "VaultFormat", targets: ["VaultFormat"]),
        .library(name: "VaultIO", targets: ["VaultIO"]),
        .library(name: "VaultImport", targets: ["VaultImport"]),
        .library(name: "VaultDelivery", targets: ["VaultDelivery"]),
        .executable(name: "vaulttool", targets: ["vaulttool"]),
        // Not API: package internals for the Fuzz/ and Benchmarks/ packages (Sources/_VaultHooks/README.md).
        .library(name: "_VaultHooks", targets: ["_VaultHooks"]),
    ],
    targets: [
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        // KeePass XML through libxml2, the XML reader every distribution ships (FoundationXML would
        // pull in Foundation), loaded with dlopen when an export is read. `libxml2/libxml` links to
        // libxml2-dev's headers (/usr/include/libxml2/libxml): a pkg-config system library would
        // also link the library into every vaulttool start.
        .target(name: "CVaultXML", cSettings: [.headerSearchPath("libxml2")]),
        .target(name: "CVaultSys", cSettings: [.define("_GNU_SOURCE")]),
        // Process hardening (core dumps, fatal-signal handlers): the tool's business, not a library's.
        // Its fatal-signal handler gives back a terminal that a run left in raw mode (CVaultRun).
        .target(name: "CVaultTool", dependencies: ["CVaultRun"], cSettings: [.define("_GNU_SOURCE")]),
        // Running a program with secrets: fork/exec, sealed memfds, pseudo-terminals and the signal
        // relay (GNU extensions), in C because a forked child may only make async-signal-safe calls.
        .target(name: "CVaultRun", cSettings: [.define("_GNU_SOURCE")]),
        // The Secret Service provider's C side: sd-bus object tables, and the DH session's
        // arithmetic and AES-CBC from libgcrypt (Spec/secret-service.md). Both libraries are
        // loaded with dlopen when the provider starts (Lazy.c), not linked; SHA-256, HMAC and
        // random bytes come from libsodium.
        .target(
            name: "CSecretService",
            dependencies: ["CSodium"],
            cSettings: [.define("_GNU_SOURCE")]
        ),
        // TPM2 sealing (Spec/tpm2.md) through the TSS2 ESAPI, loaded with dlopen when a TPM is first
        // used: libtss2-dev's headers at build time, its libraries only on machines that use a TPM.
        .target(name: "CVaultTPM", cSettings: [.define("_GNU_SOURCE")]),
        .target(name: "VaultFormat", dependencies: ["CSodium", "CArgon2"]),
        .target(name: "VaultIO", dependencies: ["VaultFormat", "CVaultSys", "CVaultTPM"]),
        // Reading other stores' exports (KeePassXC, Bitwarden, the generic layouts), with
        // FoundationEssentials' JSON and libxml2: no Foundation, so vaulttool starts without it.
        .target(name: "VaultImport", dependencies: ["VaultIO", "CVaultXML"]),
        // Handing secrets to other programs: a child's environment with masked output (run),
        // templates (inject) and systemd's credential sockets (credential-server). Not VaultIO: an
        // app that keeps a keychain needs no fork/exec, pseudo-terminal or socket server.
        .target(name: "VaultDelivery", dependencies: ["VaultIO", "CVaultRun"]),
        .target(
            name: "_VaultHooks",
            dependencies: ["VaultFormat", "VaultIO", "VaultSecretService"],
            exclude: ["README.md"]
        ),
        // org.freedesktop.secrets over the session bus, from VaultIO's public API (not a product).
        .target(name: "VaultSecretService", dependencies: ["VaultIO", "CSecretService"]),
        .executableTarget(
            name: "vaulttool",
            dependencies: ["VaultIO", "VaultImport", "VaultDelivery", "VaultSecretService", "CVaultTool"]
        ),
        .target(name: "VaultTestSupport", dependencies: ["VaultFormat"], path: "Tests/VaultTestSupport"),
        .executableTarget(
            name: "vault-fixturegen",
            dependencies: ["VaultFormat", "VaultTestSupport"],
            path: "Tests/FixtureGenerator"
        ),
        .testTarget(
            name: "VaultFormatTests",
            dependencies: ["VaultFormat", "VaultTestSupport"],
            resources: [.copy("Vectors")]
        ),
        .testTarget(name: "VaultIOTests", dependencies: ["VaultIO", "VaultFormat", "VaultTestSupport"]),
        .testTarget(name: "VaultSecretServiceTests", dependencies: ["VaultSecretService", "VaultIO"]),
        .testTarget(name: "VaultImportTests", dependencies: ["VaultImport", "VaultIO"]),
        .testTarget(name: "VaultDeliveryTests", dependencies: ["VaultDelivery", "VaultIO"]),
        // Written as an app outside this package would: depends on VaultIO only, imports VaultIO only.
        .testTarget(name: "AppStyleTests", dependencies: ["VaultIO"]),
        // vaulttool's parsing and printing, in-process (`@testable import vaulttool`), without the binary.
        .testTarget(name: "vaulttoolUnitTests", dependencies: ["vaulttool"]),
        .testTarget(
            name: "vaulttoolTests",
            dependencies: ["VaultFormat", "VaultIO", "VaultTestSupport"],
            exclude: ["Data", "Snapshots"]  // sample exports and help snapshots, read by path from the tests
        ),
    ],
    swiftLanguageModes: [.v6]
)
