// swift-tools-version:6.0
// libFuzzer targets for the project's parsers, kept out of the main package so they never slow its
// build or tests. Built and run by scripts/fuzz.sh (own scratch path, -sanitize=fuzzer,address, lld).
import PackageDescription

let package = Package(
    name: "swift-hybrid-transport-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "swift-hybrid-transport", path: "..")
    ],
    targets: [
        // The shared libFuzzer driver: FUZZ_TARGET picks the parser.
        .target(name: "FuzzDriver"),
        // Every HybridCore and HybridCTAP parser (HybridFuzzOracles' entry points, behind @_spi(Fuzzing)).
        .executableTarget(
            name: "hybrid-core-fuzz",
            dependencies: ["FuzzDriver", .product(name: "HybridFuzzOracles", package: "swift-hybrid-transport")],
            path: "Sources/HybridCoreFuzz"
        ),
        // HCI events / LE advertising reports and D-Bus messages (HybridBluetooth).
        .executableTarget(
            name: "hybrid-bluetooth-fuzz",
            dependencies: ["FuzzDriver", .product(name: "HybridFuzzOracles", package: "swift-hybrid-transport")],
            path: "Sources/HybridBluetoothFuzz"
        ),
        // The WebAuthn options JSON (HybridClient), CTAPHID packets and state machine (HybridSecurityKey).
        .executableTarget(
            name: "hybrid-client-fuzz",
            dependencies: [
                "FuzzDriver",
                .product(name: "HybridClient", package: "swift-hybrid-transport"),
                .product(name: "HybridSecurityKey", package: "swift-hybrid-transport"),
                .product(name: "HybridCore", package: "swift-hybrid-transport"),
                .product(name: "HybridCTAP", package: "swift-hybrid-transport"),
            ],
            path: "Sources/HybridClientFuzz"
        ),
        // The CXF 1.0 reader of passkey import (HybridAuthenticator).
        .executableTarget(
            name: "hybrid-authenticator-fuzz",
            dependencies: ["FuzzDriver", .product(name: "HybridFuzzOracles", package: "swift-hybrid-transport")],
            path: "Sources/HybridAuthenticatorFuzz"
        ),
    ],
    swiftLanguageModes: [.v6]
)
