import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridClient
import HybridCore
import Logging
import TunnelRelay

/// Full ceremonies in one process: a relay on 127.0.0.1 (port 0), ``HybridClientRunner`` and the
/// authenticator role's `AuthenticatorRunner` (auto-approve, in-memory store) on a simulated air
/// of its own. The phone starts the moment the QR code is shown, as if scanned instantly.
struct CeremonyBenchmark {
    let count: Int
    let warmup: Int

    private enum Child: Sendable {
        case client(finished: ContinuousClock.Instant)
        case phone
        case relay
    }

    /// Milliseconds from QR shown to response, one per timed ceremony.
    func run() async throws -> [Double] {
        let quiet = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
        var configuration = RelayConfiguration()
        configuration.port = 0
        configuration.connectionsPerSecondPerIP = 0
        configuration.shutdownGracePeriod = .zero
        let relay = try await buildRelay(configuration: configuration, logger: quiet)
        let origin = TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: relay.port)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hybrid-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let air = SimulatedAir(directory: directory.path)
        let store = InMemoryPasskeyStore()
        let webOrigin = try WebOrigin("https://example.com")

        return try await withThrowingTaskGroup(of: [Double].self) { group in
            group.addTask {
                try await relay.run()
                return []
            }
            defer { group.cancelAll() }
            var timings: [Double] = []
            for index in 0..<(warmup + count) {
                let request: HybridClientRequest
                if index % 2 == 0 {
                    let options = try PublicKeyCredentialCreationOptionsJSON.quick(
                        rpID: "example.com", userName: "user\(index)", userID: Array("user\(index)".utf8),
                        challenge: Array(repeating: UInt8(index & 0xff), count: 32))
                    request = .registration(try RegistrationCeremony(options: options, origin: webOrigin))
                } else {
                    let options = PublicKeyCredentialRequestOptionsJSON.quick(
                        rpID: "example.com", challenge: Array(repeating: UInt8(index & 0xff), count: 32))
                    request = .authentication(try AuthenticationCeremony(options: options, origin: webOrigin))
                }
                let milliseconds = try await ceremony(request, relay: origin, air: air, store: store, logger: quiet)
                if index >= warmup { timings.append(milliseconds) }
            }
            return timings
        }
    }

    private func ceremony(
        _ request: HybridClientRequest, relay: TunnelServerOrigin, air: SimulatedAir, store: InMemoryPasskeyStore,
        logger: Logger
    ) async throws -> Double {
        let client = HybridClientRunner(
            options: HybridClientOptions(
                bluetooth: .simulated(air), timeout: .seconds(10), tunnelServers: [.google: relay]),
            logger: logger)
        var phoneOptions = AuthenticatorRunner.Options(ble: .simulated(air))
        phoneOptions.tunnelOrigin = relay
        let phone = AuthenticatorRunner(
            options: phoneOptions,
            authenticator: CTAPAuthenticator(
                store: store, userInteraction: AutoApproveUserInteraction(userVerification: true)),
            logger: logger)
        let (shown, sink) = AsyncStream<(String, ContinuousClock.Instant)>.makeStream()
        return try await withThrowingTaskGroup(of: Child.self) { group in
            group.addTask {
                _ = try await client.run(request) { event in
                    if case .qr(let url) = event {
                        sink.yield((url, .now))
                        sink.finish()
                    }
                }
                return .client(finished: .now)
            }
            var qrIterator = shown.makeAsyncIterator()
            guard let (url, qrShown) = await qrIterator.next() else { throw CancellationError() }
            group.addTask {
                _ = try await phone.run(qrCode: url) { _ in }
                return .phone
            }
            var elapsed: Duration?
            while let child = try await group.next() {
                if case .client(let finished) = child { elapsed = finished - qrShown }
            }
            guard let elapsed else { throw CancellationError() }
            return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        }
    }
}
