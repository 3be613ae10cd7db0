import Foundation
import HybridCore
import Logging
import TunnelRelay

/// A tunnel relay on 127.0.0.1, port 0, for the length of `body`.
package enum LoopbackRelay {
    /// TunnelRelayTests' test certificate for localhost / 127.0.0.1 (used by path, not copied), and
    /// its key: a relay's `tls`, and a client's extra CA.
    package static let certificate = fixture("localhost-cert.pem")
    package static let key = fixture("localhost-key.pem")

    private static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TunnelRelayTests/Fixtures").appendingPathComponent(name).path
    }

    /// Runs `body` with the origin of a started relay; stops the relay when `body` returns or throws.
    ///
    /// The relay gives a connection an hour from accept to upgrade (a test connects, then sends
    /// its request when its task next runs: in a full `swift test` run on two cores that can be
    /// more than the default 10 s later); `configure` changes the rest (TLS, limits).
    package static func with<Result: Sendable>(
        _ configure: (inout RelayConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (TunnelServerOrigin) async throws -> Result
    ) async throws -> Result {
        var configuration = RelayConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.connectionsPerSecondPerIP = 0
        configuration.shutdownGracePeriod = .zero
        configuration.handshakeTimeout = .seconds(3600)
        configure(&configuration)
        let logger = Logger(label: "test-relay", factory: { _ in SwiftLogNoOpLogHandler() })
        let relay = try await buildRelay(configuration: configuration, logger: logger)
        let origin = TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: relay.port)
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                try await relay.run()
                return nil
            }
            group.addTask { try await body(origin) }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let result = next { return result }
            }
            throw CancellationError()
        }
    }
}
