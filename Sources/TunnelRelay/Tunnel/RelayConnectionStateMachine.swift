import NIOCore
import NIOWebSocket

/// One side of a tunnel after the WebSocket upgrade, as a sans-IO state machine: events in (bytes
/// read, the peer joined, writability, a pong written, a ping tick, a close command), actions out
/// (``Action``: writes, forwards, reads paused or resumed, the tunnel ended, the connection
/// closed). ``RelayTunnelHandler`` feeds it the channel's events and performs its actions; nothing
/// here touches a socket, a clock or a logger, so every interleaving can be driven in a test.
///
/// It cuts frames out of the bytes read (``RelayFrameReader``), reassembles fragmented messages
/// (``RelayMessageAssembler``), checks each message against the limits and forwards it to the peer
/// unmasked and re-framed (queueing on the `/cable/new` side until the peer joins), answers pings,
/// pings silent peers, and closes with a ``RelayCloseCode`` that says why. What it holds is bounded
/// whatever the client sends: it stops reading (``RelayReadPause``) while the peer's socket is
/// full, while the pre-pairing queue is full, and while a pong cannot be written; it has at most one
/// pong in flight and answers no ping while its own socket is full. Bytes in flight beyond a small
/// allowance are charged to the relay-wide ``RelayConnectionBudget``; a connection that would exceed
/// it is closed with ``RelayCloseCode/tryAgainLater`` and no longer read. It never looks inside a
/// message.
struct RelayConnectionStateMachine {
    /// What the machine asks its shell to do, in order.
    enum Action: Equatable {
        /// Write `frame` to this connection and flush; then `then`.
        case write(ByteBuffer, then: AfterWrite)
        /// Write a whole message to the peer (unmasked with `maskKey`); with `tracked`, tell the
        /// in-flight budget when the write completes.
        case forward(payload: ByteBuffer, maskKey: WebSocketMaskingKey?, tracked: Bool)
        /// Write an already encoded message (from the pre-pairing queue) to the peer.
        case forwardEncoded(ByteBuffer)
        /// Flush what was forwarded to the peer.
        case flushPeer
        /// Add this read cycle's forwarded messages and bytes to the metrics.
        case countForwarded(messages: Int, bytes: Int)
        /// Turn reading from the socket off or on (on only if the connection is still open).
        case setReading(Bool)
        /// Count the connection as paused for `reasons` (`true`) or no longer paused.
        case readsPaused(Bool, reasons: RelayReadPause)
        /// Drop everything read from now on before TLS or anything else spends work on it.
        case discardInbound
        /// End this side of the tunnel for `reason` (which closes the peer).
        case endTunnel(TunnelEndReason)
        /// Count a close the relay initiated with this code.
        case countClose(RelayCloseCode)
        /// Close the TCP connection after the close timeout unless the other end does first.
        case startCloseTimer
        /// Close the TCP connection now.
        case closeConnection
        /// Count a ping left unanswered.
        case pongSkipped
        /// Report to a test observer.
        case probe(RelayProbeEvent)
    }

    /// What follows a ``Action/write(_:then:)`` once the write completed (or failed).
    enum AfterWrite: Equatable {
        case nothing
        /// Feed ``pongWritten()``.
        case pongWritten
        /// Close the TCP connection.
        case closeConnection
    }

    /// The limits a connection checks, copied out of ``RelayConfiguration`` (a few words, not the
    /// whole configuration, per connection).
    struct Limits {
        var maxMessageSize: Int
        var maxMessagesPerDirection: Int
        var maxBytesPerDirection: Int
        var maxQueuedMessages: Int
        var maxQueuedBytesPerTunnel: Int
        var maxPingsPerInterval: Int
        var inFlightAllowance: Int

        init(_ configuration: RelayConfiguration) {
            maxMessageSize = configuration.maxMessageSize
            maxMessagesPerDirection = configuration.maxMessagesPerDirection
            maxBytesPerDirection = configuration.maxBytesPerDirection
            maxQueuedMessages = configuration.maxQueuedMessages
            maxQueuedBytesPerTunnel = configuration.maxQueuedBytesPerTunnel
            maxPingsPerInterval = configuration.maxPingsPerInterval
            inFlightAllowance = configuration.inFlightAllowancePerConnection
        }
    }

    let side: TunnelSide
    private let limits: Limits
    private let budget: any RelayConnectionBudget
    private let allocator = ByteBufferAllocator()
    private var actions: [Action] = []

    /// The start of a frame that has not arrived whole (copied out of the read buffer).
    private var partialFrame: ByteBuffer?
    /// What the current read cycle has not handled yet (between ``read(_:)`` and ``endOfRead()``).
    private var reading: ByteBuffer?
    private var assembler: RelayMessageAssembler
    /// The frame stream can no longer be parsed, or is being discarded: nothing read is looked at.
    private var stoppedReading = false
    /// Messages and bytes forwarded in this read cycle, counted once at its end.
    private var forwardedInCycle = (messages: 0, bytes: 0)
    private var peerJoined = false
    /// Encoded messages, with their payload lengths, for a peer that has not joined yet.
    private var queue: [(frame: ByteBuffer, length: Int)] = []
    /// What ``queue`` is charged to the pre-pairing budget.
    private var queuedBytes = 0
    private var pongInFlight = false
    /// Pings received since the last tick (``Limits/maxPingsPerInterval``).
    private var pingsSinceTick = 0
    private var paused: RelayReadPause = []
    private var sent = (messages: 0, bytes: 0)
    /// A close frame was sent or received: no more messages or pongs.
    private var closing = false
    private var readSinceTick = false
    private var pingOutstanding = false

    init(side: TunnelSide, limits: Limits, budget: any RelayConnectionBudget) {
        self.side = side
        self.limits = limits
        self.budget = budget
        self.assembler = RelayMessageAssembler(maxMessageSize: limits.maxMessageSize)
    }

    /// Reasons reading is paused now.
    var pauseReasons: RelayReadPause { paused }

    // MARK: Events

    /// Bytes read from the socket. Then call ``nextFrame(socketWritable:)`` until it returns
    /// `nil`, performing the actions of each frame before asking for the next (a pong written at
    /// once lets the next ping be answered too), then ``endOfRead()``. Returns `false` (and
    /// there is nothing to do) once the connection is no longer read.
    mutating func read(_ data: ByteBuffer) -> Bool {
        guard !stoppedReading else { return false }
        var bytes = data
        if var partial = partialFrame {
            partialFrame = nil  // one reference while appending: no copy-on-write
            partial.writeBuffer(&bytes)
            bytes = partial
        }
        reading = bytes
        return true
    }

    /// Handles the next whole frame of what was read; `nil` when no whole frame is left (or
    /// nothing more is read). `socketWritable`: whether this connection's socket takes writes now
    /// (a ping is only answered then).
    mutating func nextFrame(socketWritable: Bool) -> [Action]? {
        guard !stoppedReading, var bytes = reading else { return nil }
        reading = nil  // one reference while parsing
        defer { reading = bytes }
        let message: RelayInboundFrame
        do {
            guard let frame = try RelayFrameReader.next(from: &bytes, maxFrameSize: limits.maxMessageSize) else {
                return nil
            }
            readSinceTick = true
            pingOutstanding = false
            guard let whole = try assembler.take(frame) else { return [] }
            message = whole
        } catch {
            if error.endsTheFrameStream { stoppedReading = true }
            close(error.closeCode)
            return takeActions()
        }
        handle(message, socketWritable: socketWritable)
        return takeActions()
    }

    /// After the last ``nextFrame(socketWritable:)``: keeps the start of an incomplete frame and
    /// charges what the read path holds to the in-flight budget.
    mutating func endOfRead() -> [Action] {
        // The start of a frame still incomplete is copied: a slice would keep the whole read
        // buffer alive (and stop NIO from reusing it).
        if !stoppedReading, let bytes = reading, bytes.readableBytes > 0 {
            partialFrame = bytes.readerIndex == 0 ? bytes : ByteBuffer(buffer: bytes)
        }
        reading = nil
        if !budget.hold(undecoded: partialFrame?.readableBytes ?? 0, fragments: assembler.heldBytes) {
            stopReadingAndClose(.tryAgainLater)
        }
        return takeActions()
    }

    /// The end of a read cycle: what was forwarded in it leaves in one flush.
    mutating func readComplete() -> [Action] {
        if peerJoined { actions.append(.flushPeer) }
        countForwarded()
        return takeActions()
    }

    /// The peer's connection is known (it joined, or was there when this side was upgraded): the
    /// pre-pairing queue goes to it, and reading resumes if the queue had paused it.
    mutating func peerJoinedTunnel() -> [Action] {
        guard !peerJoined else { return [] }
        peerJoined = true
        let queued = queue
        dropQueue()
        for (frame, length) in queued {
            actions.append(.forwardEncoded(frame))
            forwardedInCycle.messages += 1
            forwardedInCycle.bytes += length
        }
        actions.append(.flushPeer)
        countForwarded()
        resume(.queueFull)
        return takeActions()
    }

    /// The peer's socket filled up (`false`) or drained (`true`).
    mutating func peerWritabilityChanged(_ writable: Bool) -> [Action] {
        if writable { resume(.peerNotWritable) } else { pause(.peerNotWritable) }
        return takeActions()
    }

    /// This connection's socket filled up or drained.
    mutating func writabilityChanged(_ writable: Bool) -> [Action] {
        if writable { resume(.notWritable) }
        return takeActions()
    }

    /// The pong asked for by a ``Action/write(_:then:)`` has been written (or failed).
    mutating func pongWritten() -> [Action] {
        pongInFlight = false
        resume(.pongPending)
        return takeActions()
    }

    /// A ping interval passed: ping a silent client, close one silent since the last ping.
    mutating func pingTick() -> [Action] {
        pingsSinceTick = 0
        defer { readSinceTick = false }
        guard !readSinceTick, !closing else { return [] }
        if pingOutstanding {
            close(.idleTimeout)
        } else {
            pingOutstanding = true
            actions.append(
                .write(RelayOutboundFrame.encode(.ping, payload: ByteBuffer(), allocator: allocator), then: .nothing))
            actions.append(.probe(.pinged))
        }
        return takeActions()
    }

    /// Close with `code`: the peer ended, a timer ran out, shutdown.
    mutating func closeCommand(_ code: RelayCloseCode) -> [Action] {
        close(code)
        return takeActions()
    }

    /// The TCP connection is gone.
    mutating func connectionClosed() -> [Action] {
        reading = nil
        actions.append(.endTunnel(.dropped))
        if !paused.isEmpty {
            paused = []
            actions.append(.readsPaused(false, reasons: []))
        }
        partialFrame = nil
        return takeActions()
    }

    /// The handler leaves the pipeline: gives back the pre-pairing queue's charge.
    mutating func removed() {
        dropQueue()
    }

    // MARK: Frames and messages

    private mutating func handle(_ frame: RelayInboundFrame, socketWritable: Bool) {
        switch frame.opcode {
        case .binary:
            // Unmasked client frames are not rejected: a relay loses nothing by accepting them.
            guard !closing else { return }
            message(frame)
        case .text:
            close(.policyViolation)
        case .ping:
            guard !closing else { return }
            answer(ping: frame, socketWritable: socketWritable)
        case .pong:
            actions.append(.probe(.pongReceived))
        case .connectionClose:
            receivedClose(frame)
        default:
            close(.protocolError)
        }
    }

    private mutating func message(_ frame: RelayInboundFrame) {
        let length = frame.length
        guard length > 0 else { return close(.policyViolation) }
        sent.messages += 1
        sent.bytes += length
        guard sent.messages <= limits.maxMessagesPerDirection, sent.bytes <= limits.maxBytesPerDirection else {
            return close(.limitExceeded)
        }
        guard peerJoined else {
            return enqueue(
                RelayOutboundFrame.encode(
                    .binary, payload: frame.payload, maskKey: frame.maskKey, allocator: allocator), length: length)
        }
        forwardedInCycle.messages += 1
        forwardedInCycle.bytes += length
        // Smaller messages are not tracked: the peer's high-water mark pauses reading, so at most
        // one of them waits beyond it.
        let tracked = length > limits.inFlightAllowance
        if tracked { budget.forwarding(length) }
        actions.append(.forward(payload: frame.payload, maskKey: frame.maskKey, tracked: tracked))
    }

    /// Holds a message for a peer that has not joined. The per-tunnel limits pause reading once
    /// reached (frames already read when the pause takes effect are still queued: at most one
    /// read cycle); the global budget is hard: a message that does not fit closes this side.
    private mutating func enqueue(_ frame: ByteBuffer, length: Int) {
        let charge = length + RelayAccounting.queuedMessageOverhead
        guard budget.reserveQueued(charge) else { return close(.limitExceeded) }
        queue.append((frame, length))
        queuedBytes += charge
        if queue.count >= limits.maxQueuedMessages || queuedBytes >= limits.maxQueuedBytesPerTunnel {
            pause(.queueFull)
        }
    }

    private mutating func dropQueue() {
        queue = []
        budget.releaseQueued(queuedBytes)
        queuedBytes = 0
    }

    private mutating func countForwarded() {
        guard forwardedInCycle.messages > 0 else { return }
        actions.append(.countForwarded(messages: forwardedInCycle.messages, bytes: forwardedInCycle.bytes))
        forwardedInCycle = (0, 0)
    }

    // MARK: Pings, pauses, closing

    /// Pongs only while this socket is writable and no earlier pong is still being written (RFC
    /// 6455 §5.5.3 allows answering only the latest ping); otherwise stops reading until that
    /// changes. Memory per connection stays one pong, whatever the ping rate.
    private mutating func answer(ping frame: RelayInboundFrame, socketWritable: Bool) {
        pingsSinceTick += 1
        guard pingsSinceTick <= limits.maxPingsPerInterval else { return stopReadingAndClose(.limitExceeded) }
        guard socketWritable else {
            actions.append(.pongSkipped)
            return pause(.notWritable)
        }
        guard !pongInFlight else {
            actions.append(.pongSkipped)
            return pause(.pongPending)
        }
        pongInFlight = true
        let pong = RelayOutboundFrame.encode(
            .pong, payload: frame.payload, maskKey: frame.maskKey, allocator: allocator)
        actions.append(.write(pong, then: .pongWritten))
    }

    /// For a flood or a refused budget: stops reading and decoding at once and closes with `code`;
    /// the close frame goes out, TCP after the close timeout.
    private mutating func stopReadingAndClose(_ code: RelayCloseCode) {
        stoppedReading = true
        partialFrame = nil
        reading = nil
        pause(.closing)
        actions.append(.discardInbound)
        close(code)
    }

    /// Stops reading for `reason` (reading resumes when every reason is gone).
    private mutating func pause(_ reason: RelayReadPause) {
        guard !paused.contains(reason) else { return }
        let wasReading = paused.isEmpty
        paused.insert(reason)
        guard wasReading else { return }
        actions.append(.setReading(false))
        actions.append(.readsPaused(true, reasons: paused))
    }

    private mutating func resume(_ reason: RelayReadPause) {
        guard paused.contains(reason) else { return }
        paused.remove(reason)
        guard paused.isEmpty else { return }
        actions.append(.readsPaused(false, reasons: []))
        actions.append(.setReading(true))
    }

    private mutating func receivedClose(_ frame: RelayInboundFrame) {
        if closing {
            actions.append(.closeConnection)
            return
        }
        closing = true
        actions.append(.endTunnel(.closeFrame))
        // Echo the close code (RFC 6455 §5.5.1), then close the TCP connection.
        let code = frame.payload.getSlice(at: frame.payload.readerIndex, length: min(2, frame.length)) ?? ByteBuffer()
        let echo = RelayOutboundFrame.encode(
            .connectionClose, payload: code.readableBytes == 2 ? code : ByteBuffer(), maskKey: frame.maskKey,
            allocator: allocator
        )
        actions.append(.write(echo, then: .closeConnection))
    }

    /// Sends a close frame with `code`, ends this side, and drops TCP when the other end answers
    /// or after the close timeout.
    private mutating func close(_ code: RelayCloseCode) {
        guard !closing else { return }
        closing = true
        dropQueue()
        actions.append(.endTunnel(.relay(code)))
        actions.append(.countClose(code))
        var data = allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code.webSocketErrorCode)
        actions.append(
            .write(RelayOutboundFrame.encode(.connectionClose, payload: data, allocator: allocator), then: .nothing))
        actions.append(.startCloseTimer)
    }

    private mutating func takeActions() -> [Action] {
        defer { actions = [] }
        return actions
    }
}
