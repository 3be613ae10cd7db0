import HybridCore
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import TunnelRelay

/// ``RelayTunnelHandler`` on `EmbeddedChannel`s: how the actions of
/// ``RelayConnectionStateMachine`` become channel operations (auto-read, the discard handler, the
/// close timer, writes to the peer and the budgets they give back). The machine's decisions are
/// tested in ``RelayConnectionStateMachineTests``; here only their mapping onto NIO. Frames are
/// written out from RFC 6455 (§5.2, the examples of §5.7), not produced by the relay's encoder.
struct RelayTunnelHandlerTests {
    // RFC 6455 §5.7: the masking key 0x37fa213d and "Hello" masked with it.
    static let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
    static let maskedHello: [UInt8] = [0x7F, 0x9F, 0x4D, 0x51, 0x58]
    /// A masked single-frame binary message "Hello".
    static let binaryHello: [UInt8] = [0x82, 0x85] + mask + maskedHello
    /// The same message as the relay writes it to the peer: unmasked (§5.7, opcode 2).
    static let unmaskedHello: [UInt8] = [0x82, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]
    /// A masked ping with body "Hello", and the unmasked pong that answers it (§5.7).
    static let pingHello: [UInt8] = [0x89, 0x85] + mask + maskedHello
    static let pongHello: [UInt8] = [0x8A, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]

    /// A server close frame with `code`, big-endian (§5.5.1).
    static func serverClose(_ code: UInt16) -> [UInt8] {
        [0x88, 0x02, UInt8(code >> 8), UInt8(code & 0xFF)]
    }

    /// One tunnel's relay side, on channels of one `EmbeddedEventLoop`.
    final class Harness {
        let loop = EmbeddedEventLoop()
        let relay: RelayContext
        let newChannel: EmbeddedChannel
        let pairing: TunnelPairing
        /// Everything read that reached the pipeline's first handler (where TLS would be).
        let reads = ReadRecorder()

        /// The `/cable/new` side, upgraded and active; its peer has not joined.
        init(_ configure: (inout RelayConfiguration) -> Void = { _ in }) throws {
            var configuration = RelayConfiguration()
            configure(&configuration)
            let metrics = RelayMetrics()
            // Timers and sweepers of another loop: on the channels' loop the close timer is then a
            // scheduled task of the EmbeddedEventLoop, which only its advanceTime runs.
            let elsewhere = EmbeddedEventLoop()
            relay = RelayContext(
                configuration: configuration,
                registry: TunnelRegistry(
                    routingIDPrefix: 0, maxPending: 16, random: SystemRandomNumberGenerator(), metrics: metrics),
                metrics: metrics,
                tracker: ConnectionTracker(metrics: metrics),
                pingSweepers: PingSweepers(group: elsewhere, interval: .seconds(3600)),
                timers: RelayTimers(group: elsewhere),
                accounting: RelayAccounting(
                    maxQueuedBytesTotal: configuration.maxQueuedBytesTotal,
                    maxInFlightBytesTotal: configuration.maxInFlightBytesTotal, metrics: metrics),
                logger: Logger(label: "RelayTunnelHandlerTests", factory: { _ in SwiftLogNoOpLogHandler() })
            )
            newChannel = EmbeddedChannel(loop: loop)
            pairing = TunnelPairing(
                tunnelID: try #require(TunnelID(bytes: [UInt8](repeating: 7, count: TunnelID.byteCount))),
                routingID: try #require(RoutingID(bytes: [0, 1, 2])), newChannel: newChannel, createdAt: .now()
            )
            try newChannel.pipeline.syncOperations.addHandler(reads)
            try newChannel.pipeline.syncOperations.addHandler(handler(.new))
            try newChannel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        }

        func handler(_ side: TunnelSide) -> RelayTunnelHandler {
            RelayTunnelHandler(
                side: side, pairing: pairing, relay: relay,
                inFlight: RelayInFlight(
                    accounting: relay.accounting, allowance: relay.configuration.inFlightAllowancePerConnection)
            )
        }

        /// Joins a `/cable/connect` side; `before` goes in its pipeline ahead of the tunnel handler.
        func join(before: (any ChannelHandler)? = nil) throws -> EmbeddedChannel {
            let channel = EmbeddedChannel(loop: loop)
            #expect(pairing.join(connectChannel: channel))
            if let before { try channel.pipeline.syncOperations.addHandler(before) }
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2)).wait()
            try channel.pipeline.syncOperations.addHandler(handler(.connect))
            return channel
        }

        /// The auto-read value last set on `channel` (`nil`: never set).
        static func autoRead(_ channel: EmbeddedChannel) -> Bool? {
            channel.options.first { $0.option is ChannelOptions.Types.AutoReadOption }?.value as? Bool
        }

        /// Every frame written to `channel` so far, as bytes.
        static func written(_ channel: EmbeddedChannel) throws -> [[UInt8]] {
            var frames: [[UInt8]] = []
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
                frames.append(Array(buffer.readableBytesView))
            }
            return frames
        }
    }

    /// Counts the reads that reach it and passes them on.
    final class ReadRecorder: ChannelInboundHandler {
        typealias InboundIn = NIOAny
        var count = 0

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            count += 1
            context.fireChannelRead(data)
        }
    }

    /// Holds every write (the peer's socket never takes it) until ``complete()``.
    final class HoldWrites: ChannelOutboundHandler {
        typealias OutboundIn = NIOAny
        var promises: [EventLoopPromise<Void>?] = []

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            promises.append(promise)
        }

        func complete() {
            for promise in promises { promise?.succeed() }
            promises = []
        }
    }

    // MARK: Auto-read

    /// The peer's socket fills and drains: reading stops and resumes (and the pause is counted
    /// while it lasts).
    @Test func autoReadFollowsThePeersWritability() throws {
        let harness = try Harness()
        let channel = harness.newChannel
        channel.pipeline.fireUserInboundEventTriggered(RelayPeerWritability(writable: false))
        #expect(Harness.autoRead(channel) == false)
        #expect(harness.relay.accounting.pausedConnections == 1)
        channel.pipeline.fireUserInboundEventTriggered(RelayPeerWritability(writable: true))
        #expect(Harness.autoRead(channel) == true)
        #expect(harness.relay.accounting.pausedConnections == 0)
    }

    /// A connection paused when it ends is counted off; its auto-read stays off.
    @Test func pauseIsCountedOffWhenTheConnectionEnds() throws {
        let harness = try Harness()
        let channel = harness.newChannel
        // A ping whose pong cannot be written (this socket is full) pauses reading.
        channel.isWritable = false
        try channel.writeInbound(ByteBuffer(bytes: Self.pingHello))
        #expect(Harness.autoRead(channel) == false)
        #expect(harness.relay.accounting.pausedConnections == 1)
        try channel.close().wait()
        #expect(harness.relay.accounting.pausedConnections == 0)
        #expect(Harness.autoRead(channel) == false)
    }

    // MARK: Discarding

    /// A ping flood: the close frame goes out, reading stops, and what the client sends afterwards
    /// is dropped at the front of the pipeline.
    @Test func inboundIsDiscardedOnceClosingForAFlood() throws {
        let harness = try Harness { $0.maxPingsPerInterval = 1 }
        let channel = harness.newChannel
        try channel.writeInbound(ByteBuffer(bytes: Self.pingHello + Self.pingHello))
        #expect(try Harness.written(channel) == [Self.pongHello, Self.serverClose(4004)])
        #expect(Harness.autoRead(channel) == false)
        #expect(harness.reads.count == 1)
        try channel.writeInbound(ByteBuffer(bytes: Self.binaryHello))
        #expect(harness.reads.count == 1, "dropped before the first handler that was there")
    }

    // MARK: The close timer

    /// The relay closes; the client never answers: TCP closes once the close timeout has passed,
    /// not before.
    @Test func closeTimerClosesAfterTheTimeout() throws {
        let harness = try Harness { $0.closeTimeout = .seconds(2) }
        let channel = harness.newChannel
        channel.pipeline.fireUserInboundEventTriggered(RelayCloseCommand(code: .goingAway))
        #expect(try Harness.written(channel) == [Self.serverClose(1001)])
        harness.loop.advanceTime(by: .milliseconds(1999))
        #expect(channel.isActive)
        harness.loop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }

    // MARK: Forwarding

    /// Once paired, a message read on one side is written, unmasked, to the other in the read
    /// cycle's flush.
    @Test func messagesAreForwardedToThePeer() throws {
        let harness = try Harness()
        let connect = try harness.join()
        try harness.newChannel.writeInbound(ByteBuffer(bytes: Self.binaryHello + Self.binaryHello))
        #expect(try Harness.written(connect) == [Self.unmaskedHello, Self.unmaskedHello])
        try connect.writeInbound(ByteBuffer(bytes: Self.binaryHello))
        #expect(try Harness.written(harness.newChannel) == [Self.unmaskedHello])
    }

    /// Messages read before the peer joined wait, charged to the pre-pairing budget; the join
    /// writes them to the peer and gives the charge back.
    @Test func queuedMessagesGoToThePeerWhenItJoins() throws {
        let harness = try Harness()
        try harness.newChannel.writeInbound(ByteBuffer(bytes: Self.binaryHello))
        #expect(harness.relay.accounting.queuedBytes == 5 + RelayAccounting.queuedMessageOverhead)
        let connect = try harness.join()
        #expect(try Harness.written(connect) == [Self.unmaskedHello])
        #expect(harness.relay.accounting.queuedBytes == 0)
    }

    /// A message above the in-flight allowance is charged to the relay-wide budget until the
    /// peer's socket has taken it.
    @Test func largeMessagesAreChargedUntilWritten() throws {
        let harness = try Harness { $0.inFlightAllowancePerConnection = 4 }
        let held = HoldWrites()
        _ = try harness.join(before: held)
        try harness.newChannel.writeInbound(ByteBuffer(bytes: Self.binaryHello))
        #expect(held.promises.count == 1)
        #expect(harness.relay.accounting.inFlightBytes == 5 - 4)
        held.complete()
        #expect(harness.relay.accounting.inFlightBytes == 0)
    }
}
