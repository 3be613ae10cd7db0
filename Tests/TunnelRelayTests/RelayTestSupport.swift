import HybridCore
import Logging
import TestLoopbackRelay

@testable import TunnelRelay

/// The relay tests' relay on 127.0.0.1 port 0 (the client side is ``RelayTest`` in TestLoopbackRelay).
extension RelayTest {
    /// A configuration for tests: loopback, OS-chosen port, no per-IP rate limit, and an hour's
    /// handshake timeout (a test connects, then sends its request when its task next runs: in a
    /// full `swift test` run on two cores that can be more than the default 10 s later; the
    /// test of the timeout itself sets its own).
    static func configuration(_ configure: (inout RelayConfiguration) -> Void = { _ in }) -> RelayConfiguration {
        var configuration = RelayConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.connectionsPerSecondPerIP = 0
        configuration.handshakeTimeout = .seconds(3600)
        configure(&configuration)
        return configuration
    }

    /// Runs `body` with a started relay; cancels the relay afterwards and waits for it to stop.
    @discardableResult
    static func withRelay<Result: Sendable>(
        _ configure: (inout RelayConfiguration) -> Void = { _ in },
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        observer: any RelayObserver = UnobservedRelay(),
        _ body: (RelayServer, TunnelServerOrigin) async throws -> Result
    ) async throws -> Result {
        let relay = try await buildRelay(
            configuration: configuration(configure), random: random, logger: logger, observer: observer)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await relay.run() }
            let origin = TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: relay.port)
            do {
                let result = try await body(relay, origin)
                group.cancelAll()
                try await group.waitForAll()
                return result
            } catch {
                group.cancelAll()
                try? await group.waitForAll()
                throw error
            }
        }
    }
}
