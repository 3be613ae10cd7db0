import HybridCore
import HybridTransport
import NIOConcurrencyHelpers
import NIOCore

/// The tunnels of one benchmark run: an echoing NIO phone (``EchoPhone``) on `/cable/new` and
/// our ``TunnelClient`` on `/cable/connect`. Tunnel `i` is a throughput worker if
/// `i < throughputTunnels`, a latency worker for the next `latencyTunnels`, idle otherwise.
///
/// Phases only move forward (``PhaseGate``); each active phase is followed by its stop phase.
final class Bench: Sendable {
    /// Every tunnel sends one message and checks the echo (one frame each way through the relay).
    static let everyTunnel = 1
    static let smallThroughput = 2
    static let largeThroughput = 4
    static let relayedLatency = 6
    static let directLatency = 8
    static let done = 10

    let counters = Counters()
    let gate = PhaseGate()
    private let phase = NIOLockedValueBox(0)
    private let size = NIOLockedValueBox(64)
    private let slots: SetupSlots
    private let relay: TunnelServerOrigin
    private let sourcePorts: SourcePorts
    private let configuration: TunnelClient.Configuration
    private let latencyTunnels: Int
    private let throughputTunnels: Int
    private let latencyIntervalNanoseconds: Int64

    init(
        relayHost: String = "127.0.0.1",
        relayPort: Int,
        sourcePorts: SourcePorts,
        configuration: TunnelClient.Configuration,
        setupConcurrency: Int,
        latencyTunnels: Int,
        throughputTunnels: Int,
        latencyRoundTripsPerSecond: Double
    ) {
        self.relay = TunnelServerOrigin(scheme: .ws, host: relayHost, port: relayPort)
        self.sourcePorts = sourcePorts
        self.configuration = configuration
        self.latencyTunnels = latencyTunnels
        self.throughputTunnels = throughputTunnels
        self.latencyIntervalNanoseconds = Int64(1e9 / latencyRoundTripsPerSecond)
        self.slots = SetupSlots(setupConcurrency)
    }

    var messageSize: Int {
        get { size.withLockedValue { $0 } }
        set { size.withLockedValue { $0 = newValue } }
    }

    private var currentPhase: Int { phase.withLockedValue { $0 } }

    /// Opens tunnel `index` (phone on /cable/new, client on /cable/connect), runs its role, and
    /// keeps it open until phase 100.
    func holdTunnel(_ index: Int) async {
        await slots.acquire()
        var released = false
        do {
            let tunnelID = Self.randomTunnelID()
            let (routingID, phone) = try await openPhone(tunnelID)
            defer { phone.close(promise: nil) }
            try await connect(to: TunnelURL(origin: relay, path: .connect(routingID, tunnelID))) { client in
                released = true
                await self.slots.release()
                _ = self.counters.paired()
                try await self.work(index, client: client)
            }
        } catch {
            if !released { await slots.release() }
            counters.failed()
        }
    }

    /// The echoing `/cable/new` side, from a fresh source port (retrying when one is taken).
    private func openPhone(_ tunnelID: TunnelID) async throws -> (RoutingID, any Channel) {
        var attempts = 0
        while true {
            do {
                return try await EchoPhone.open(
                    relayHost: relay.host, relayPort: relay.effectivePort, tunnelID: tunnelID, localAddress: try sourcePorts.take()
                )
            } catch {
                attempts += 1
                if attempts >= 20 { throw error }
            }
        }
    }

    /// `withConnection` from a fresh explicit source port, retrying when the port is taken.
    private func connect(
        to url: TunnelURL,
        _ body: (TunnelConnection) async throws -> Void
    ) async throws {
        var attempts = 0
        while true {
            var configuration = self.configuration
            configuration.localAddress = try sourcePorts.take()
            let client = TunnelClient(configuration: configuration, logger: RelayBenchCommand.logger)
            var entered = false
            do {
                try await client.withConnection(to: url) { connection in
                    entered = true
                    try await body(connection)
                }
                return
            } catch TunnelClientError.unreachable(let detail) where !entered {
                attempts += 1
                if attempts >= 20 { throw TunnelClientError.unreachable(detail) }
            }
        }
    }

    private func work(_ index: Int, client: TunnelConnection) async throws {
        let isThroughput = index < throughputTunnels
        let isLatency = !isThroughput && index < throughputTunnels + latencyTunnels
        var replies = client.messages.makeAsyncIterator()
        await gate.wait(for: Self.everyTunnel)
        if currentPhase == Self.everyTunnel {
            try await checkRoundTrip(index, client, &replies)
        }
        guard isThroughput || isLatency else {
            await gate.wait(for: Self.done)
            return
        }
        if isThroughput {
            for phase in [Self.smallThroughput, Self.largeThroughput] {
                await gate.wait(for: phase)
                let message = [UInt8](repeating: 0x5a, count: messageSize)
                var count = 0
                while currentPhase == phase {
                    try await client.send(message)
                    guard try await replies.next() != nil else { break }
                    count += 1
                }
                counters.roundTrips(count)
            }
        } else {
            await gate.wait(for: Self.relayedLatency)
            counters.samples(try await pacedRoundTrips(client, &replies, while: Self.relayedLatency))
        }
        await gate.wait(for: Self.done)
    }

    /// Sends one message that no other tunnel sends (its index and random bytes) and counts
    /// whether the same bytes came back: the relay carried a frame each way on this tunnel.
    private func checkRoundTrip(
        _ index: Int, _ connection: TunnelConnection, _ replies: inout TunnelMessages.AsyncIterator
    ) async throws {
        var generator = SystemRandomNumberGenerator()
        let message = withUnsafeBytes(of: UInt64(index).littleEndian, Array.init)
            + (0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }
        do {
            try await connection.send(message)
            let reply = try await replies.next()
            counters.checked(ok: reply == message)
        } catch {
            counters.checked(ok: false)
            throw error
        }
    }

    /// Round trips of 64-byte messages at the latency interval while the phase lasts; returns
    /// their durations in nanoseconds.
    private func pacedRoundTrips(
        _ connection: TunnelConnection,
        _ replies: inout TunnelMessages.AsyncIterator,
        while activePhase: Int
    ) async throws -> [Int] {
        let clock = ContinuousClock()
        let message = [UInt8](repeating: 0xa5, count: 64)
        let interval = Duration.nanoseconds(latencyIntervalNanoseconds)
        var samples: [Int] = []
        // Spread the workers' first sends over one interval.
        var next = clock.now + .nanoseconds(Int64.random(in: 0..<latencyIntervalNanoseconds))
        while currentPhase == activePhase {
            try await clock.sleep(until: next)
            let start = clock.now
            try await connection.send(message)
            guard try await replies.next() != nil else { break }
            let elapsed = clock.now - start
            samples.append(Int(elapsed.components.seconds) * 1_000_000_000 + Int(elapsed.components.attoseconds / 1_000_000_000))
            next += interval
            if next < clock.now { next = clock.now }
        }
        return samples
    }

    /// The same client and pacing against the direct echo server, for `seconds`.
    func directLatency(echoPort: Int, tunnels: Int, seconds: Double) async throws -> [Int] {
        let echo = TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: echoPort)
        phase.withLockedValue { $0 = Self.directLatency }
        return try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<tunnels {
                group.addTask {
                    var samples: [Int] = []
                    try await self.connect(to: TunnelURL(origin: echo, path: .new(Self.randomTunnelID()))) { connection in
                        var replies = connection.messages.makeAsyncIterator()
                        samples = try await self.pacedRoundTrips(connection, &replies, while: Self.directLatency)
                    }
                    return samples
                }
            }
            try await Task.sleep(for: .seconds(seconds))
            phase.withLockedValue { $0 = Self.directLatency + 1 }
            var all: [Int] = []
            for try await samples in group { all += samples }
            return all
        }
    }

    /// Round trips of `size`-byte messages completed in `seconds` by `connections` WebSocket
    /// connections doing them back to back against an echo at 127.0.0.1:`port` (directly, or
    /// through a proxy in front of it).
    func echoThroughput(port: Int, connections: Int, size: Int, seconds: Double) async throws -> Int {
        let echo = TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: port)
        let running = NIOLockedValueBox(true)
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<connections {
                group.addTask {
                    var count = 0
                    try await self.connect(to: TunnelURL(origin: echo, path: .new(Self.randomTunnelID()))) { connection in
                        var replies = connection.messages.makeAsyncIterator()
                        let message = [UInt8](repeating: 0x5a, count: size)
                        while running.withLockedValue({ $0 }) {
                            try await connection.send(message)
                            guard try await replies.next() != nil else { break }
                            count += 1
                        }
                    }
                    return count
                }
            }
            try await Task.sleep(for: .seconds(seconds))
            running.withLockedValue { $0 = false }
            var total = 0
            for try await count in group { total += count }
            return total
        }
    }

    /// Moves every tunnel to `target` (see the type's phase list).
    func advance(to target: Int) async {
        phase.withLockedValue { $0 = target }
        await gate.advance(to: target)
    }

    static func randomTunnelID() -> TunnelID {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<TunnelID.byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
        guard let tunnelID = TunnelID(bytes: bytes) else { preconditionFailure("16 bytes") }
        return tunnelID
    }
}
