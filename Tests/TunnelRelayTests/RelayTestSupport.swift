import Foundation
import HybridCore
import HybridTransport
import Logging
import NIOCore
import Synchronization
import TestSeededRandom
import Testing

@testable import TunnelRelay

/// Shared helpers: a relay on 127.0.0.1 port 0, a client, fresh IDs, expectations on close codes.
enum RelayTest {
    static let logger = Logger(label: "relay.test", factory: { _ in SwiftLogNoOpLogHandler() })

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
        probe: any RelayProbe = UnprobedRelay(),
        _ body: (RelayServer, TunnelServerOrigin) async throws -> Result
    ) async throws -> Result {
        let relay = try await buildRelay(
            configuration: configuration(configure), random: random, logger: logger, probe: probe)
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

    /// The tests' client, with an hour to connect and upgrade for the same reason as
    /// ``configuration(_:)`` (the client's own timeouts are tested with their own configuration).
    static let client: TunnelClient = {
        var configuration = TunnelClient.Configuration()
        configuration.connectTimeout = .seconds(3600)
        configuration.handshakeTimeout = .seconds(3600)
        return TunnelClient(configuration: configuration, logger: logger)
    }()

    /// A fresh tunnel ID from the suite's seeded generator (its seed printed once, so that a run's
    /// IDs can be replayed; tests take them in whatever order they run).
    static func randomTunnelID() -> TunnelID {
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

    static func newURL(_ origin: TunnelServerOrigin, _ tunnelID: TunnelID) -> TunnelURL {
        TunnelURL(origin: origin, path: .new(tunnelID))
    }

    static func connectURL(_ origin: TunnelServerOrigin, _ routingID: RoutingID, _ tunnelID: TunnelID) -> TunnelURL {
        TunnelURL(origin: origin, path: .connect(routingID, tunnelID))
    }

    /// Reads the next message, failing the test if the stream ends first.
    static func next(
        _ iterator: inout TunnelMessages.AsyncIterator,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [UInt8] {
        try #require(try await iterator.next(), "stream ended", sourceLocation: sourceLocation)
    }

    /// Reads until the server closes; returns the messages read and the close code.
    static func drain(_ connection: TunnelConnection) async -> (messages: [[UInt8]], code: UInt16?) {
        var iterator = connection.messages.makeAsyncIterator()
        return await drain(connection, &iterator)
    }

    /// ``drain(_:)`` with an iterator already in use.
    static func drain(
        _ connection: TunnelConnection,
        _ iterator: inout TunnelMessages.AsyncIterator
    ) async -> (messages: [[UInt8]], code: UInt16?) {
        var messages: [[UInt8]] = []
        while let message = try? await iterator.next() { messages.append(message) }
        return (messages, await connection.closeInfo()?.code)
    }
}
