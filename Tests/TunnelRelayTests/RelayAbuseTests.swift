import HybridCore
import HybridTransport
import NIOCore
import NIOPosix
import TestLoopbackRelay
import Testing

@testable import TunnelRelay

/// What one abusive client can do to the relay's memory and to other clients: each test holds the
/// relay at a bound it reports itself, and shows that a legitimate client still gets through. No
/// test sleeps: they wait for the relay's own events (``ObservedEventRecorder``) and drive the ping sweeper
/// themselves.
@Suite(.timeLimit(.minutes(5)))
struct RelayAbuseTests {
    /// A ping interval the timer never reaches during a test: tests tick the sweeper themselves.
    /// (The sweeper ticks one of up to 1024 groups every interval/1024: 30 days make that 42 min.)
    static func manualPings(_ configuration: inout RelayConfiguration) {
        configuration.pingInterval = .seconds(30 * 86_400)
        configuration.closeTimeout = .milliseconds(50)
        // A flooder's upgrade request may come late on a starved machine; refused by the
        // handshake timer, it would end its flood before the event the test waits for.
        configuration.handshakeTimeout = .seconds(3600)
    }

    /// A masked ping with the longest control payload (125 bytes): each pong the relay owes is
    /// as large as it can be.
    static let ping = RawConnection.maskedFrame(opcode: 0x9, payload: [UInt8](repeating: 7, count: 125))

    /// Sends `/cable/new` and then `frame` without end, and never reads: a small receive buffer
    /// and autoRead off, so whatever the relay sends backs up at once.
    ///
    /// The writes are driven by the channel's event loop (``FloodWriter``), not by a task: on a
    /// loaded two-core machine the whole suite shares two cooperative threads, and a flood that
    /// needed one per write could stall behind other tests past the time limit, before the relay
    /// saw a single frame.
    final class Flooder: Sendable {
        let channel: any Channel

        /// `receiveBuffer`: the socket's SO_RCVBUF (nil: the kernel's default).
        init(port: Int, receiveBuffer: Int? = 4096) async throws {
            var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.autoRead, value: false)
            if let receiveBuffer {
                bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: receiveBuffer)
            }
            channel = try await bootstrap.connect(host: "127.0.0.1", port: port).get()
        }

        /// Starts the flood: `count` copies of `frame` per write, as long as the socket takes them.
        func start(_ frame: [UInt8], count: Int = 256) {
            let request = RawConnection.upgradeRequest(path: TunnelPath.new(RelayTest.randomTunnelID()).canonicalPath)
            let chunk = ByteBuffer(bytes: Array([[UInt8]](repeating: frame, count: count).joined()))
            let channel = self.channel
            channel.eventLoop.execute {
                try? channel.pipeline.syncOperations.addHandler(
                    FloodWriter(request: ByteBuffer(string: request), chunk: chunk))
            }
        }

        /// Returns when the relay has closed the connection, ``stop()`` was called, or the task is
        /// cancelled (the suite's time limit): no flood outlives its test.
        func finished() async {
            let channel = self.channel
            await withTaskCancellationHandler {
                try? await channel.closeFuture.get()
            } onCancel: {
                channel.close(promise: nil)
            }
        }

        /// ``start(_:count:)`` and ``finished()``.
        func flood(_ frame: [UInt8], count: Int = 256) async {
            start(frame, count: count)
            await finished()
        }

        func stop() async { try? await channel.close().get() }
    }

    /// Writes the upgrade request, then `chunk` until the channel is not writable, and again each
    /// time it drains; a failed write closes the connection.
    final class FloodWriter: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        private let request: ByteBuffer
        private let chunk: ByteBuffer

        init(request: ByteBuffer, chunk: ByteBuffer) {
            self.request = request
            self.chunk = chunk
        }

        func handlerAdded(context: ChannelHandlerContext) {
            context.write(wrapOutboundOut(request), promise: nil)
            fill(context)
        }

        func channelWritabilityChanged(context: ChannelHandlerContext) {
            // Filled on the next turn of the loop: this event comes from inside the last flush.
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.execute { loopBound.value.0.fill(loopBound.value.1) }
            context.fireChannelWritabilityChanged()
        }

        private func fill(_ context: ChannelHandlerContext) {
            let channel = context.channel
            while channel.isActive, channel.isWritable {
                context.write(wrapOutboundOut(chunk)).whenFailure { _ in channel.close(promise: nil) }
            }
            context.flush()
        }
    }

    /// The counters of a metrics exposition that are not zero: what the relay did, for a failure.
    static func nonZeroCounters(_ exposition: String) -> [Substring] {
        exposition.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasSuffix(" 0") && !$0.hasSuffix(" 0.0") }
    }

    /// With the ping cap out of the way: a client that floods pings and never reads ends up
    /// paused (one pong queued at most), then closed as idle.
    @Test func pingFloodWithoutReadingIsPausedThenClosed() async throws {
        let recorder = ObservedEventRecorder()
        let configure: (inout RelayConfiguration) -> Void = {
            Self.manualPings(&$0)
            $0.maxPingsPerInterval = .max
        }
        try await RelayTest.withRelay(configure, observer: recorder.observer) { relay, origin async throws in
            // Connected here, so a refused connection fails the test at once, not at the time limit.
            // The kernel's receive buffer: with 4 KiB, loopback TCP sometimes stalled both ways on
            // a loaded machine (the relay had answered ~1000 pings at once and read all it
            // was sent; the flooder's writes never completed, nothing moved until the pending TTL
            // closed the tunnel 60 s later) and the pause never came.
            let flooder = try await Flooder(port: origin.effectivePort, receiveBuffer: nil)
            flooder.start(Self.ping)
            // A pong that cannot be written stops the relay reading: at most one pong is queued.
            let paused = await recorder.next(where: { if case .readsPaused = $0 { true } else { false } })
            #expect(
                paused == .readsPaused(.pongPending) || paused == .readsPaused(.notWritable),
                "the relay reported \(recorder.recorded.prefix(20)); \(Self.nonZeroCounters(relay.metricsText()))")
            // Not "paused now": an early pause ends when its pong is written, until the flooder's
            // socket is full. That the last pause lasts is shown by the idle close (4005) below.
            #expect(recorder.count(where: { $0 == .pongSkipped }) > 0)

            // Meanwhile a real tunnel works.
            try await RelayLimitTests.exchange(origin)
            // Its two connections have left the ping sweepers before the test ticks them: a
            // connection the relay has not seen close yet would be closed as idle too (4005).
            for _ in 0..<2 { await recorder.next(where: { if case .inFlightEnded = $0 { true } else { false } }) }

            // Silent since the pause: pinged on an interval, closed on the next.
            for _ in 0..<3 { try await relay.tickPingSweepers() }
            try await relay.allConnectionsClosed()
            await flooder.finished()
            #expect(relay.pausedConnections == 0)
            #expect(relay.metricsText().contains(#"relay_closes_total{code="4005"} 1"#))
        }
    }

    /// Past ``RelayConfiguration/maxPingsPerInterval`` pings in one interval, the flooder is
    /// closed with 4004 at once; the pings of the next interval count from zero.
    @Test func pingFloodIsClosedAtTheCap() async throws {
        let recorder = ObservedEventRecorder()
        let configure: (inout RelayConfiguration) -> Void = {
            Self.manualPings(&$0)
            $0.maxPingsPerInterval = 3
        }
        try await RelayTest.withRelay(configure, observer: recorder.observer) { relay, origin async throws in
            try await RawConnection.with(port: origin.effectivePort) { raw async throws in
                _ = try await raw.openNewTunnel(RelayTest.randomTunnelID())
                let ping = RawConnection.maskedFrame(opcode: 0x9, payload: [1])
                try await raw.send(bytes: ping + ping + ping)
                for _ in 0..<3 { #expect(try await raw.readFrame() == (0xA, [1])) }
                try await relay.tickPingSweepers()  // a new interval: three more are fine
                try await raw.send(bytes: ping + ping + ping)
                for _ in 0..<3 { #expect(try await raw.readFrame() == (0xA, [1])) }
                try await raw.send(bytes: ping)
                #expect(try await raw.readCloseCode() == RelayCloseCode.limitExceeded.rawValue)
            }
            try await relay.allConnectionsClosed()
            #expect(relay.metricsText().contains(#"relay_closes_total{code="4004"} 1"#))
            // A flood of a hundred thousand pings ends the same way, without a pong per ping.
            try await Flooder(port: origin.effectivePort).flood(Self.ping)
            try await relay.allConnectionsClosed()
            #expect(relay.metricsText().contains(#"relay_closes_total{code="4004"} 2"#))
        }
    }

    @Test func fullPrePairingQueuePausesReadingAndLosesNothing() async throws {
        let recorder = ObservedEventRecorder()
        try await RelayTest.withRelay({ $0.maxQueuedMessages = 2 }, observer: recorder.observer) {
            relay, origin async throws in
            let tunnelID = RelayTest.randomTunnelID()
            try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, tunnelID)) { phone async throws in
                for index in 0..<5 { try await phone.send([UInt8(index)]) }
                await recorder.next(.readsPaused(.queueFull))
                #expect(relay.pausedConnections == 1)
                try await RelayTest.client.withConnection(
                    to: RelayTest.connectURL(origin, try phone.routingID(), tunnelID)
                ) { client async throws in
                    var fromPhone = client.messages.makeAsyncIterator()
                    for index in 0..<5 { #expect(try await RelayTest.next(&fromPhone) == [UInt8(index)]) }
                }
            }
            #expect(relay.queuedBytes == 0)
        }
    }

    @Test func globalPrePairingBudgetClosesTheTunnelThatDoesNotFit() async throws {
        let recorder = ObservedEventRecorder()
        let charge = 600 + RelayAccounting.queuedMessageOverhead
        try await RelayTest.withRelay({ $0.maxQueuedBytesTotal = 1000 }, observer: recorder.observer) {
            relay, origin async throws in
            let first = RelayTest.randomTunnelID()
            try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, first)) { phone async throws in
                try await phone.send([UInt8](repeating: 1, count: 600))
                await recorder.next(.queued(totalBytes: charge))
                try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, RelayTest.randomTunnelID())) {
                    greedy async throws in
                    try await greedy.send([UInt8](repeating: 2, count: 600))
                    #expect(await RelayTest.drain(greedy).code == RelayCloseCode.limitExceeded.rawValue)
                }
                #expect(relay.queuedBytes == charge)
                // The first tunnel lost nothing.
                try await RelayTest.client.withConnection(
                    to: RelayTest.connectURL(origin, try phone.routingID(), first)
                ) { client async throws in
                    var fromPhone = client.messages.makeAsyncIterator()
                    #expect(try await RelayTest.next(&fromPhone) == [UInt8](repeating: 1, count: 600))
                }
            }
            #expect(relay.queuedBytes == 0)
            #expect(recorder.count(where: { $0 == .queueBudgetExhausted }) == 1)
        }
    }

    /// Partly sent messages are charged to the relay-wide in-flight budget beyond a per-connection
    /// allowance: a second connection whose partial message does not fit is closed with 1013 and
    /// no longer read; the first one loses nothing, and the charge returns to zero once its
    /// message is whole.
    @Test func inFlightBudgetClosesTheConnectionThatDoesNotFit() async throws {
        let recorder = ObservedEventRecorder()
        let configure: (inout RelayConfiguration) -> Void = {
            $0.maxInFlightBytesTotal = 100_000
            $0.inFlightAllowancePerConnection = 1000
        }
        // A masked binary frame with a 16-bit length: 8 header bytes, then 60 000 payload bytes.
        let payload = (0..<60_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let frame = RawConnection.maskedBinaryFrame(payload: payload)
        try await RelayTest.withRelay(configure, observer: recorder.observer) { relay, origin async throws in
            let tunnelID = RelayTest.randomTunnelID()
            try await RawConnection.with(port: origin.effectivePort) { first async throws in
                let routingID = try await first.openNewTunnel(tunnelID)
                try await first.send(bytes: Array(frame[..<50_008]))
                // Held: 50 008 bytes undecoded; charged: all but the 1000-byte allowance.
                await recorder.next(.inFlight(totalBytes: 49_008))
                try await RawConnection.with(port: origin.effectivePort) { second async throws in
                    _ = try await second.openNewTunnel(RelayTest.randomTunnelID())
                    try await second.send(bytes: Array(frame[..<55_008]))  // 54 008 more do not fit
                    #expect(try await second.readCloseCode() == RelayCloseCode.tryAgainLater.rawValue)
                }
                await recorder.next(.inFlightBudgetExhausted)
                // The closed connection gave back its charge; the first one still holds its own.
                #expect(
                    await recorder.next(where: { if case .inFlightEnded = $0 { true } else { false } })
                        == .inFlightEnded(totalBytes: 49_008))
                #expect(relay.inFlightBytes == 49_008)
                try await first.send(bytes: Array(frame[50_008...]))
                // The message is whole (queued for the peer): nothing is in flight any more.
                await recorder.next(.inFlight(totalBytes: 0))
                try await RelayTest.client.withConnection(to: RelayTest.connectURL(origin, routingID, tunnelID)) {
                    client async throws in
                    var fromPhone = client.messages.makeAsyncIterator()
                    #expect(try await RelayTest.next(&fromPhone) == payload)
                    // A message forwarded at once is in flight until written, then released.
                    try await client.send(payload)
                    #expect(try await first.readDataFrame() == (0x2, payload))
                    await recorder.next(.messageWritten)
                    #expect(relay.inFlightBytes == 0)
                }
            }
            #expect(recorder.count(where: { $0 == .inFlightBudgetExhausted }) == 1)
            #expect(
                recorder.count(where: { if case .inFlight(let total) = $0 { total > 100_000 } else { false } }) == 0)
            #expect(relay.metricsText().contains(#"relay_closes_total{code="1013"} 1"#))
        }
    }

    /// 127.0.0.2 holds its two connections; its third is refused at once; 127.0.0.1 still works.
    @Test func perAddressConnectionCapLeavesOtherAddressesWorking() async throws {
        try await RelayTest.withRelay({ $0.maxConnectionsPerIP = 2 }) { relay, origin async throws in
            let port = origin.effectivePort
            try await RawConnection.with(port: port, from: "127.0.0.2") { first async throws in
                _ = try await first.openNewTunnel(RelayTest.randomTunnelID())
                try await RawConnection.with(port: port, from: "127.0.0.2") { second async throws in
                    _ = try await second.openNewTunnel(RelayTest.randomTunnelID())
                    // Refused before sending anything: answered and closed without waiting for a request.
                    let refused = try await RawConnection.with(port: port, from: "127.0.0.2") { third async throws in
                        String(decoding: await third.readToEnd(), as: UTF8.self)
                    }
                    #expect(refused.httpStatus == 429)
                    #expect(
                        try await RelayRejectionTests.status(port: port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                            == 200)
                    try await RelayLimitTests.exchange(origin)
                }
            }
            #expect(relay.metricsText().contains(#"relay_rejects_total{reason="address_connection_limit"} 1"#))
        }
    }

    @Test func perAddressPendingCapLeavesOtherAddressesWorking() async throws {
        try await RelayTest.withRelay({ $0.maxPendingTunnelsPerIP = 2 }) { relay, origin async throws in
            let port = origin.effectivePort
            try await RawConnection.with(port: port, from: "127.0.0.2") { first async throws in
                _ = try await first.openNewTunnel(RelayTest.randomTunnelID())
                try await RawConnection.with(port: port, from: "127.0.0.2") { second async throws in
                    _ = try await second.openNewTunnel(RelayTest.randomTunnelID())
                    try await RawConnection.with(port: port, from: "127.0.0.2") { third async throws in
                        try await third.send(
                            RawConnection.upgradeRequest(path: TunnelPath.new(RelayTest.randomTunnelID()).canonicalPath)
                        )
                        #expect(try await third.readResponseHead().httpStatus == 429)
                    }
                }
                // Another address opens pending tunnels (two at once) and pairs them.
                try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, RelayTest.randomTunnelID())) {
                    _ async throws in
                    try await RelayLimitTests.exchange(origin)
                }
            }
            #expect(relay.metricsText().contains(#"relay_rejects_total{reason="address_pending_limit"} 1"#))
        }
    }

    /// A rate-limited connection is answered and closed at accept: it does not wait for a request
    /// (here the handshake timeout, an hour, would outlast the test).
    @Test func rateLimitedConnectionIsClosedAtOnce() async throws {
        try await RelayTest.withRelay({
            $0.connectionsPerSecondPerIP = 0.001
            $0.connectionBurstPerIP = 1
            $0.handshakeTimeout = .seconds(3600)
        }) { relay, origin async throws in
            try await RawConnection.with(port: origin.effectivePort) { first async throws in
                _ = try await first.openNewTunnel(RelayTest.randomTunnelID())
                let refused = try await RawConnection.with(port: origin.effectivePort) { raw async throws in
                    String(decoding: await raw.readToEnd(), as: UTF8.self)
                }
                #expect(refused.httpStatus == 429)
                #expect(refused.contains("Connection: close"))
            }
            try await relay.allConnectionsClosed()
        }
    }

    @Test(arguments: [0x40, 0x20, 0x10] as [UInt8])
    func reservedBitsCloseWith1002(bit: UInt8) async throws {
        try await RelayTest.withRelay { _, origin async throws in
            try await RawConnection.with(port: origin.effectivePort) { raw async throws in
                _ = try await raw.openNewTunnel(RelayTest.randomTunnelID())
                var frame = RawConnection.maskedFrame(opcode: 0x2, payload: [1, 2, 3])
                frame[0] |= bit
                try await raw.send(bytes: frame)
                #expect(try await raw.readCloseCode() == RelayCloseCode.protocolError.rawValue)
            }
        }
    }

    /// The CI short version of `Benchmarks/relay-abuse.py`'s two worst patterns at once: ping
    /// floods (closed at the ping cap) and pre-pairing floods of 16 KiB messages (paused at the
    /// per-tunnel queue size, or closed at the global budget), while real tunnels run. Asserts the
    /// relay's own accounting (queued bytes never above the budget) and that every real tunnel
    /// succeeds; no timing. Every flooder it starts is stopped before it returns (the ping
    /// flooders are closed by the relay at the cap; a flooder still writing is closed here).
    @Test func floodsKeepTheBoundsAndRealTunnelsSucceed() async throws {
        let recorder = ObservedEventRecorder()
        let budget = 512 << 10
        // The flooders connect first and send their requests once their tasks run (see
        // RelayTest.configuration): a flooder refused for a timeout would never be paused, the
        // event this test waits for.
        let configure: (inout RelayConfiguration) -> Void = {
            $0.maxQueuedBytesTotal = budget
            $0.closeTimeout = .milliseconds(200)
            $0.pendingTunnelTTL = .seconds(3600)
        }
        try await RelayTest.withRelay(configure, observer: recorder.observer) { relay, origin async throws in
            let port = origin.effectivePort
            let message = RawConnection.maskedBinaryFrame(payload: [UInt8](repeating: 9, count: 16 << 10))
            var queueFlooders: [Flooder] = []
            var pingFlooders: [Flooder] = []
            for _ in 0..<10 { queueFlooders.append(try await Flooder(port: port)) }
            for _ in 0..<10 { pingFlooders.append(try await Flooder(port: port)) }
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for flooder in queueFlooders { group.addTask { await flooder.flood(message, count: 4) } }
                    for flooder in pingFlooders { group.addTask { await flooder.flood(Self.ping) } }
                    // Every queue flooder stops being read: paused, or closed beyond the budget.
                    for _ in 0..<10 {
                        await recorder.next(where: {
                            if case .readsPaused(.queueFull) = $0 { return true }
                            return $0 == .queueBudgetExhausted
                        })
                    }
                    try await withThrowingTaskGroup(of: Void.self) { tunnels in
                        for _ in 0..<10 { tunnels.addTask { try await RelayLimitTests.exchange(origin) } }
                        try await tunnels.waitForAll()
                    }
                    #expect(relay.queuedBytes <= budget)
                    for flooder in queueFlooders { await flooder.stop() }
                    // The ping flooders' writes end when the relay closes them at the ping cap.
                    try await group.waitForAll()
                }
            } catch {
                for flooder in queueFlooders + pingFlooders { await flooder.stop() }
                throw error
            }
            for flooder in queueFlooders + pingFlooders { await flooder.stop() }
            #expect(recorder.count(where: { if case .queued(let total) = $0 { total > budget } else { false } }) == 0)
            #expect(recorder.count(where: { if case .queued = $0 { true } else { false } }) >= 10)
            #expect(relay.metricsText().contains(#"relay_closes_total{code="4004"}"#))
        }
    }

    @Test func defaultLimitsFollowTheDescriptorLimit() {
        // This machine's hard limit: 20 000. Reserve 2 % = 400.
        let limits = RelayDefaultLimits(descriptorLimit: 20_000)
        #expect(limits.reserve == 400)
        #expect(limits.maxConnections == 19_600)
        #expect(limits.maxConnectionsPerIP == 1_225)
        #expect(limits.maxPendingTunnels == 9_800)
        #expect(limits.maxPendingTunnelsPerIP == 153)
        // The shell default: a reserve of 32, per-address caps at their floors.
        let small = RelayDefaultLimits(descriptorLimit: 1024)
        #expect(small == RelayDefaultLimits(descriptorLimit: 1024))
        #expect((small.reserve, small.maxConnections, small.maxConnectionsPerIP) == (32, 992, 62))
        #expect((small.maxPendingTunnels, small.maxPendingTunnelsPerIP) == (496, 7))
        // Per-address caps never exceed their ceilings.
        let huge = RelayDefaultLimits(descriptorLimit: 1 << 20)
        #expect((huge.maxConnectionsPerIP, huge.maxPendingTunnelsPerIP) == (4096, 1024))
        // The defaults in force are the ones for the real limit.
        #expect(
            RelayConfiguration().maxConnections
                == RelayDefaultLimits(descriptorLimit: RelayDefaultLimits.descriptorLimit()).maxConnections)
    }
}
