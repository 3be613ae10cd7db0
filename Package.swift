// swift-tools-version:6.0
// FIDO hybrid transport (caBLE v2) for Linux: a sans-IO protocol core and three roles on top.
import PackageDescription

let crypto: [Target.Dependency] = [
    .product(name: "Crypto", package: "swift-crypto"),
    .product(name: "CryptoExtras", package: "swift-crypto"),
]
let nio: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
    .product(name: "NIOWebSocket", package: "swift-nio"),
    .product(name: "NIOSSL", package: "swift-nio-ssl"),
]
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")

let relayTestDependencies: [Target.Dependency] =
    [
        "TunnelRelay", "HybridTransport", "tunnel-relay", "TestChildProcess", "HAProxySupport", "TestSeededRandom",
        "TestLoopbackRelay", logging,
    ] + nio + [
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
    ]

let package = Package(
    name: "swift-hybrid-transport",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "HybridCore", targets: ["HybridCore"]),
        .library(name: "HybridLocalFiles", targets: ["HybridLocalFiles"]),
        .library(name: "HybridCTAP", targets: ["HybridCTAP"]),
        .library(name: "HybridTransport", targets: ["HybridTransport"]),
        .library(name: "HybridBluetooth", targets: ["HybridBluetooth"]),
        .library(name: "TunnelRelay", targets: ["TunnelRelay"]),
        .library(name: "HybridAuthenticator", targets: ["HybridAuthenticator"]),
        .library(name: "HybridClient", targets: ["HybridClient"]),
        .library(name: "HybridFuzzOracles", targets: ["HybridFuzzOracles"]),
        .library(name: "HybridPresentation", targets: ["HybridPresentation"]),
        .executable(name: "hybrid-conformance", targets: ["hybrid-conformance"]),
        .executable(name: "tunnel-relay", targets: ["tunnel-relay"]),
        .executable(name: "relay-bench", targets: ["relay-bench"]),
        .executable(name: "hybrid-authenticator", targets: ["hybrid-authenticator"]),
        .executable(name: "hybrid-client", targets: ["hybrid-client"]),
        .library(name: "HybridSecurityKey", targets: ["HybridSecurityKey"]),
        .executable(name: "hybrid-security-key", targets: ["hybrid-security-key"]),
        .executable(name: "hybrid-key-broker", targets: ["hybrid-key-broker"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        // Latency percentiles in relay-bench.
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        // `swift package generate-documentation`: the DocC catalogues in Sources/*/*.docc (scripts/build-docs.sh).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The protocol: sans-IO, depends on swift-crypto only.
        .target(name: "HybridCore", dependencies: crypto),
        // Files on this machine: private (0600, no symbolic links) files, and the per-user XDG base
        // directories. Support for the roles and executables; no dependencies.
        .target(name: "HybridLocalFiles"),
        // Naming OS threads from inside (Foundation on Linux loses `Thread.name`); no dependencies.
        .target(name: "HybridThreads"),
        // Running work with a deadline on a clock (`withDeadline`), for every role; no dependencies.
        .target(name: "HybridDeadline"),
        // CTAP2 messages (requests, responses, authenticator data, status codes): sans-IO, on HybridCore's CBOR.
        .target(name: "HybridCTAP", dependencies: ["HybridCore"] + crypto),
        // Runs SCHEMA.md vector files against the core (internal target, so tests and the CLI share it;
        // every declaration is `package`, not a library product).
        .target(name: "HybridConformance", dependencies: ["HybridCore", "HybridCTAP"] + crypto),
        .executableTarget(
            name: "hybrid-conformance",
            dependencies: [
                "HybridCommandLine",
                "HybridPresentation",
                "HybridLocalFiles",
                "HybridConformance", "HybridConformanceLive", "HybridBluetooth", "HybridClient", "HybridAuthenticator",
                "HybridCore", argumentParser, logging,
            ] + nio
        ),

        // I/O shared by both peers: the tunnel WebSocket client.
        .target(
            name: "HybridTransport",
            dependencies: ["HybridCore", logging, .product(name: "NIOConcurrencyHelpers", package: "swift-nio")] + nio
        ),

        // BlueZ: C shim over libbluetooth, and the Swift Bluetooth layer (HCI, simulated air).
        .target(name: "CBlueZ", linkerSettings: [.linkedLibrary("bluetooth")]),
        // libdbus-1, and the D-Bus connection over it (HybridDBus): bluetoothd (org.bluez) for
        // HybridBluetooth, logind for the key broker, desktop notifications.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .target(name: "HybridDBus", dependencies: ["CDBus", "HybridThreads"]),
        .target(
            name: "HybridBluetooth",
            dependencies: ["HybridCore", "CBlueZ", "CDBus", "HybridDBus", "HybridLocalFiles", "HybridThreads", logging]),

        // The relay server.
        .target(
            name: "TunnelRelay",
            dependencies: ["HybridCore", logging] + nio + [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Load generator for the relay (Benchmarks/relay-bench.sh); not a test.
        .executableTarget(
            name: "relay-bench",
            dependencies: [
                "HybridCore", "HybridTransport", "HAProxySupport", argumentParser, logging,
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ] + nio,
            path: "Benchmarks/relay-bench"
        ),
        .executableTarget(
            name: "tunnel-relay",
            dependencies: [
                "TunnelRelay", argumentParser, logging,
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // What people see (HybridPresentation): the QR code drawn (libqrencode) as a PNG, SVG or in
        // the terminal, and read back from a screenshot (libpng and TurboJPEG turn a PNG/JPEG file into
        // grey pixels, zbar finds and decodes the QR code in them); the terminal console; desktop
        // notifications. Only the executables and HybridQRWindow use it; the role libraries link none
        // of these image libraries.
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        // The phone's wallet: OpenID4VP requests, DCQL, SD-JWT VC and mdoc presentations; sans-IO.
        .target(name: "HybridWallet", dependencies: ["HybridCore"] + crypto),
        .target(
            name: "HybridPresentation",
            dependencies: [
                "HybridCore", "HybridClient", "HybridDBus", "HybridLocalFiles", "CDBus", "CQREncode", "CZBar", "CPNG",
                "CTurboJPEG",
            ]
        ),

        // The phone's side.
        .target(
            name: "HybridAuthenticator",
            dependencies: [
                "HybridCore", "HybridCTAP", "HybridTransport", "HybridBluetooth", "HybridLocalFiles", "HybridWallet",
                "HybridDeadline", logging,
            ] + crypto
        ),
        .executableTarget(
            name: "hybrid-authenticator",
            dependencies: [
                "HybridCommandLine",
                "HybridLocalFiles",
                "HybridPresentation",
                "HybridAuthenticator", "HybridCore", "HybridCTAP", "HybridBluetooth", "HybridWallet", argumentParser,
                logging,
            ]
        ),

        // The desktop's side.
        // The Public Suffix List for the RP ID check, as browsers apply it (data: Debian's publicsuffix).
        .systemLibrary(name: "CPSL", pkgConfig: "libpsl", providers: [.apt(["libpsl-dev"])]),
        // Raw DEFLATE for the largeBlob extension's blobs.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "HybridClient",
            dependencies: [
                "HybridCore", "HybridCTAP", "HybridTransport", "HybridBluetooth", "HybridDeadline", "CPSL", "CZlib",
                logging,
            ] + crypto
        ),
        .executableTarget(
            name: "hybrid-client",
            dependencies: [
                "HybridCommandLine",
                "HybridPresentation",
                "HybridLocalFiles",
                "HybridClient", "HybridCore", "HybridCTAP", "HybridBluetooth", "HybridQRWindow", "HybridDeadline",
                argumentParser,
                logging,
            ]
        ),

        // The fuzz targets' oracles (Fuzz/, a package of its own, so `@_spi(Fuzzing) public` entry points
        // that reach the parsers through `package` access); a product only for that package.
        .target(
            name: "HybridFuzzOracles",
            dependencies: ["HybridCore", "HybridCTAP", "HybridBluetooth", "HybridDBus", "HybridAuthenticator", "CDBus"]
                + crypto
        ),

        // Command-line support, for the executables only: Ctrl-C / SIGTERM as task cancellation, the
        // QR text read from standard input, the option groups the programs share (Bluetooth,
        // tunnel servers, QR output, ceremony times, logging) with their range checks, and the
        // quiet executors a daemon runs its tasks on (no wake-up while idle).
        .target(
            name: "HybridCommandLine",
            dependencies: [
                "HybridCore", "HybridBluetooth", "HybridClient", "HybridPresentation", "HybridThreads", argumentParser,
                logging,
            ]),

        // The QR window (GTK 4): a C window behind a small interface (CGTKQRWindow) and the Swift
        // side that runs GTK on its own thread. Only the executables link it; the libraries stay GTK-free.
        .systemLibrary(name: "CGTK", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        .target(name: "CGTKQRWindow", dependencies: ["CGTK"]),
        .target(
            name: "HybridQRWindow",
            dependencies: ["CGTKQRWindow", "HybridClient", "HybridPresentation", "HybridThreads"]),

        // The phone as a FIDO2 security key for every Linux program: CTAPHID over /dev/uhid (C shim
        // for linux/uhid.h), each request forwarded to the phone through HybridClient.
        .target(name: "CUHID"),
        // The FIDO HID device on /dev/uhid: the descriptor-level node and the threaded device.
        .target(name: "HybridUHID", dependencies: ["CUHID", "HybridThreads"]),
        // The key broker's decisions and wire messages: sans-IO, no dependencies.
        .target(name: "HybridKeyBroker"),
        // The privileged half of the security key: owns /dev/uhid, one FIDO key per active local
        // session (logind over D-Bus); everything else runs in the user's hybrid-security-key.
        .executableTarget(
            name: "hybrid-key-broker",
            dependencies: ["HybridKeyBroker", "HybridUHID", "HybridDBus", argumentParser]
        ),
        .target(
            name: "HybridSecurityKey",
            dependencies: [
                "HybridClient", "HybridCore", "HybridCTAP", "HybridBluetooth", "HybridUHID", "HybridKeyBroker",
                "HybridLocalFiles", "HybridThreads", logging,
            ] + crypto
        ),
        .executableTarget(
            name: "hybrid-security-key",
            dependencies: [
                "HybridCommandLine",
                "HybridPresentation",
                "HybridLocalFiles",
                "HybridSecurityKey", "HybridUHID", "HybridKeyBroker", "HybridClient", "HybridCore", "HybridCTAP",
                "HybridBluetooth", "HybridQRWindow",
                argumentParser, logging,
            ]
        ),

        // Benchmark: the bridge's own overhead per request (scripts/bench-security-key.sh).
        .executableTarget(
            name: "security-key-bench",
            dependencies: ["HybridSecurityKey", "HybridClient", "HybridCore"],
            path: "Benchmarks/security-key-bench"
        ),

        // Benchmark: full ceremonies on loopback and the handshake's CPU cost (scripts/bench-ceremony.sh).
        .executableTarget(
            name: "hybrid-bench",
            dependencies: [
                "HybridClient", "HybridAuthenticator", "HybridCore", "HybridBluetooth", "TunnelRelay", argumentParser,
                logging,
            ] + crypto,
            path: "Benchmarks/hybrid-bench"
        ),

        // Drives running implementations (a relay, a client, a phone) and checks what they do:
        // the I/O around HybridConformance's sans-IO checks.
        .target(
            name: "HybridConformanceLive",
            dependencies: [
                "HybridConformance", "HybridCore", "HybridCTAP", "HybridTransport", "HybridBluetooth", "HybridClient",
                "HybridAuthenticator", "HybridDeadline", logging,
            ] + nio + crypto
        ),
        .testTarget(
            name: "HybridConformanceTests",
            dependencies: [
                "HybridConformance", "HybridConformanceLive", "hybrid-conformance", "HybridCore", "HybridCTAP",
                "HybridTransport",
                "HybridBluetooth", "HybridClient", "HybridAuthenticator", "TunnelRelay", "TestChildProcess",
                "TestLoopbackRelay", "TestFakePhone", "TestSupport", "TestVectorFiles", logging,
            ] + nio + crypto
        ),
        // Test support: waits for child processes off the cooperative thread pool.
        .target(name: "TestChildProcess", path: "Tests/TestChildProcess"),
        // HAProxy's runtime API and a race-free listening port for it: the fleet tests and relay-bench.
        .target(
            name: "HAProxySupport",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/HAProxySupport"
        ),
        // Test support: a clock that moves only when a test advances it.
        .target(name: "TestManualClock", path: "Tests/TestManualClock"),
        // Test support: the one seeded generator (SplitMix64) of the randomized tests.
        .target(name: "TestSeededRandom", path: "Tests/TestSeededRandom"),
        // Test support: an in-process tunnel relay on 127.0.0.1 for loopback tests, and the tests'
        // tunnel client (`RelayTest`).
        .target(
            name: "TestLoopbackRelay",
            dependencies: ["TunnelRelay", "HybridTransport", "HybridCore", "TestSeededRandom", logging],
            path: "Tests/TestLoopbackRelay"
        ),
        // Test support: the fake phone of the client and client-conformance loopback tests.
        .target(
            name: "TestFakePhone",
            dependencies: [
                "HybridAuthenticator", "HybridBluetooth", "HybridCore", "HybridTransport", "TestSupport", logging,
            ] + crypto,
            path: "Tests/TestFakePhone"
        ),
        // Test support: `TestFailure`, `randomBytes`, `capture`.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // Test support: where the shared vector files (Tests/Vectors) are.
        .target(name: "TestVectorFiles", path: "Tests/TestVectorFiles"),

        .testTarget(
            name: "HybridCoreTests",
            dependencies: [
                "HybridCore", "HybridConformance", "TestSeededRandom", "TestVectorFiles",
            ] + crypto),
        .testTarget(
            name: "HybridCTAPTests",
            dependencies: ["HybridCTAP", "HybridCore", "HybridConformance", "TestSeededRandom", "TestVectorFiles"]
                + crypto
        ),
        .testTarget(
            name: "HybridTransportTests",
            dependencies: ["HybridTransport", "HybridCore", "TunnelRelay", "TestLoopbackRelay"] + nio
        ),
        .testTarget(name: "HybridQRWindowTests", dependencies: ["HybridQRWindow", "HybridClient", "HybridCore"]),
        .testTarget(name: "HybridUHIDTests", dependencies: ["HybridUHID"]),
        .testTarget(
            name: "HybridPresentationTests",
            dependencies: ["HybridPresentation", "HybridClient", "HybridCore", "HybridLocalFiles"]),
        .testTarget(name: "HybridDBusTests", dependencies: ["HybridDBus", "HybridBluetooth", "CDBus"]),
        .testTarget(name: "HybridLocalFilesTests", dependencies: ["HybridLocalFiles", "HybridPresentation"]),
        .testTarget(name: "HybridDeadlineTests", dependencies: ["HybridDeadline", "TestManualClock"]),
        .testTarget(
            name: "HybridFuzzOraclesTests",
            dependencies: ["HybridFuzzOracles", "HybridCore", "TestSeededRandom", "TestVectorFiles"]),
        .testTarget(name: "TunnelRelayTests", dependencies: relayTestDependencies, exclude: ["Fixtures"]),
        .testTarget(
            name: "HybridBluetoothTests",
            dependencies: [
                "HybridFuzzOracles", "HybridPresentation", "HybridBluetooth", "HybridDBus", "HybridCore",
                "HybridClient",
                "TestChildProcess", "TestSeededRandom", "TestSupport",
            ]
                + crypto
        ),
        .testTarget(
            name: "HybridAuthenticatorTests",
            dependencies: [
                "HybridCommandLine",
                "HybridLocalFiles",
                "HybridPresentation",
                "HybridAuthenticator", "hybrid-authenticator", "HybridCore", "HybridCTAP", "HybridTransport",
                "HybridBluetooth", "HybridWallet",
                "TestChildProcess", "TestLoopbackRelay", "TestManualClock", "TestSeededRandom", "TestSupport", logging,
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "HybridClientTests",
            dependencies: [
                "HybridCommandLine",
                "HybridPresentation",
                "HybridLocalFiles",
                "HybridClient", "HybridCore", "HybridCTAP", "hybrid-client", "HybridTransport", "HybridBluetooth",
                "HybridAuthenticator",
                "TestChildProcess", "TestLoopbackRelay", "TestManualClock", "TestFakePhone", "TestSupport",
                "TestVectorFiles", logging,
            ] + crypto
        ),
        .testTarget(
            name: "HybridSecurityKeyTests",
            dependencies: [
                "HybridPresentation",
                "HybridLocalFiles",
                "HybridSecurityKey", "hybrid-security-key", "HybridUHID", "HybridKeyBroker", "HybridClient",
                "HybridThreads",
                "HybridCore", "HybridCTAP", "TestChildProcess", "TestManualClock", "TestSeededRandom", "TestSupport",
            ]
        ),
        .testTarget(
            name: "HybridKeyBrokerTests", dependencies: ["HybridKeyBroker", "TestSeededRandom", "TestChildProcess"]),
        .testTarget(
            name: "HybridWalletTests", dependencies: ["HybridWallet", "HybridCore", "TestChildProcess"] + crypto),
    ],
    swiftLanguageModes: [.v6]
)
