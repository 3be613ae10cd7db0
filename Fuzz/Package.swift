// swift-tools-version:6.0
// libFuzzer targets for the project's parsers, kept out of the main package so they never slow its
// build or tests. Built and run by scripts/fuzz.sh (own scratch path, -sanitize=fuzzer,address).
import PackageDescription

let package = Package(
    name: "swift-hybrid-transport-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "swift-hybrid-transport", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
    ],
    targets: [
        // One binary for every HybridCore parser; FUZZ_TARGET picks the parser (see Targets.swift).
        .executableTarget(
            name: "hybrid-core-fuzz",
            dependencies: [
                .product(name: "HybridCore", package: "swift-hybrid-transport"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/HybridCoreFuzz"
        ),
    ],
    swiftLanguageModes: [.v6]
)
