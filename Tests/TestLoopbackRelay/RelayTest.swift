import HybridCore
import HybridTransport
import Logging
import Synchronization
import TestSeededRandom
import Testing

/// The loopback tests' side of a tunnel: a quiet logger, a patient client, fresh tunnel IDs, and
/// reads that fail the test when a stream ends early.
package enum RelayTest {
    package static let logger = Logger(label: "relay.test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The tests' client, with an hour to connect and upgrade: in a full `swift test` run on two
    /// cores a test's task can next run long after it connected (the client's own timeouts are
    /// tested with their own configuration).
    package static let client: TunnelClient = {
        var configuration = TunnelClient.Configuration()
        configuration.connectTimeout = .seconds(3600)
        configuration.handshakeTimeout = .seconds(3600)
        return TunnelClient(configuration: configuration, logger: logger)
    }()

    /// A fresh tunnel ID from the suite's seeded generator (its seed printed once, so that a run's
    /// IDs can be replayed; tests take them in whatever order they run).
    package static func randomTunnelID() -> TunnelID {
        let bytes = tunnelIDs.withLock { generator in
            (0..<TunnelID.byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
        guard let tunnelID = TunnelID(bytes: bytes) else { preconditionFailure("16 bytes") }
        return tunnelID
    }

    private static let tunnelIDs: Mutex<SeededRandom> = {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("RelayTest.randomTunnelID seed \(seed)")
        return Mutex(SeededRandom(seed: seed))
    }()

    package static func newURL(_ origin: TunnelServerOrigin, _ tunnelID: TunnelID) -> TunnelURL {
        TunnelURL(origin: origin, path: .new(tunnelID))
    }

    package static func connectURL(_ origin: TunnelServerOrigin, _ routingID: RoutingID, _ tunnelID: TunnelID)
        -> TunnelURL
    {
        TunnelURL(origin: origin, path: .connect(routingID, tunnelID))
    }

    /// Reads the next message, failing the test if the stream ends first.
    package static func next(
        _ iterator: inout TunnelMessages.AsyncIterator,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [UInt8] {
        try #require(try await iterator.next(), "stream ended", sourceLocation: sourceLocation)
    }

    /// Reads until the server closes; returns the messages read and the close code.
    package static func drain(_ connection: TunnelConnection) async -> (messages: [[UInt8]], code: UInt16?) {
        var iterator = connection.messages.makeAsyncIterator()
        return await drain(connection, &iterator)
    }

    /// ``drain(_:)`` with an iterator already in use.
    package static func drain(
        _ connection: TunnelConnection,
        _ iterator: inout TunnelMessages.AsyncIterator
    ) async -> (messages: [[UInt8]], code: UInt16?) {
        var messages: [[UInt8]] = []
        while let message = try? await iterator.next() { messages.append(message) }
        return (messages, await connection.closeInfo()?.code)
    }
}
