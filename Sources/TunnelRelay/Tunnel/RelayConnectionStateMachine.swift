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
///
/// The connection's life is ``State``. Beside it are two small values that change in every open
/// state: ``Liveness`` (what was heard per ping interval, pings per interval, the pong in flight)
/// and ``ReadPauses`` (why reading is off).
///
/// ```
///     start (both sides)           peerJoinedTunnel()
///   awaitingPeer(queue) ─────────────────────────────────▶ paired
///         │  (the /cable/connect side moves on at once)       │
///         │                                                    │
///         │ close frame sent (relay(code): closeCommand, a     │
///         │ limit, a timer) or received (client); the queue    │
///         │ is given back                                      │
///         ▼                                                    ▼
///   closing(by: relay(code) | client, peerJoined, readsFrames) ◀┘
///         │   a peer can still join (nothing is forwarded; its join
///         │   resumes reading); the client's close reply ends TCP
///         │
///         │ connectionClosed(), from any state
///         ▼
///   closed(peerJoined)   terminal: only the read cycle in progress
///                        still flushes to a joined peer
/// ```
///
/// Asking the budgets stays a call (``RelayConnectionBudget``: the answer decides what happens to
/// the frame at hand); what is given back to them is an action (``Action/releaseQueued(_:)``, and
/// the charge of a tracked ``Action/forward(payload:maskKey:tracked:)``).
struct RelayConnectionStateMachine {
    /// What the machine asks its shell to do, in order.
    enum Action: Equatable {
        /// Write `frame` to this connection and flush; then `then`.
        case write(ByteBuffer, then: AfterWrite)
        /// Write a whole message to the peer (unmasked with `maskKey`); with `tracked`, charge it to
        /// the in-flight budget and give the charge back when the write completes.
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
        /// Give back `bytes` the pre-pairing queue had charged to the relay-wide budget.
        case releaseQueued(Int)
        /// Count a ping left unanswered.
        case pongSkipped
        /// Count a ping the relay sent.
        case countPing
        /// Count a pong that arrived.
        case countPong
    }

    /// What to do with bytes read (``read(_:)``).
    enum ReadAction: Equatable {
        /// Call ``nextFrame(socketWritable:)`` until it returns `nil`, then ``endOfRead()``.
        case parseFrames
        /// The connection is no longer read: nothing to do.
        case ignore
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

    private(set) var state = State.awaitingPeer(PrePairingQueue())
    private var liveness = Liveness()
    private var pauses = ReadPauses()

    /// The start of a frame that has not arrived whole (copied out of the read buffer).
    private var partialFrame: ByteBuffer?
    /// What the current read cycle has not handled yet (between ``read(_:)`` and ``endOfRead()``).
    private var reading: ByteBuffer?
    private var assembler: RelayMessageAssembler
    /// Messages and bytes forwarded in this read cycle, counted once at its end.
    private var forwardedInCycle = (messages: 0, bytes: 0)
    /// Messages and bytes this client sent, against the per-direction limits.
    private var sent = (messages: 0, bytes: 0)

    init(side: TunnelSide, limits: Limits, budget: any RelayConnectionBudget) {
        self.side = side
        self.limits = limits
        self.budget = budget
        self.assembler = RelayMessageAssembler(maxMessageSize: limits.maxMessageSize)
    }

    /// Reasons reading is paused now.
    var pauseReasons: RelayReadPause { pauses.reasons }

    /// Open: messages are forwarded or queued, pings answered and sent.
    private var isOpen: Bool {
        switch state {
        case .awaitingPeer, .paired: true
        case .closing, .closed: false
        case .modifying: preconditionFailure("state left in .modifying")
        }
    }

    /// Frames are still cut out of what is read.
    private var readsFrames: Bool {
        switch state {
        case .awaitingPeer, .paired: true
        case .closing(let closing): closing.readsFrames
        case .closed: false
        case .modifying: preconditionFailure("state left in .modifying")
        }
    }

    // MARK: Events

    /// Bytes read from the socket. On ``ReadAction/parseFrames``, call
    /// ``nextFrame(socketWritable:)`` until it returns `nil`, performing the actions of each frame
    /// before asking for the next (a pong written at once lets the next ping be answered too),
    /// then ``endOfRead()``.
    mutating func read(_ data: ByteBuffer) -> ReadAction {
        guard readsFrames else { return .ignore }
        var bytes = data
        if var partial = partialFrame {
            partialFrame = nil  // one reference while appending: no copy-on-write
            partial.writeBuffer(&bytes)
            bytes = partial
        }
        reading = bytes
        return .parseFrames
    }

    /// Handles the next whole frame of what was read; `nil` when no whole frame is left (or
    /// nothing more is read). `socketWritable`: whether this connection's socket takes writes now
    /// (a ping is only answered then).
    mutating func nextFrame(socketWritable: Bool) -> [Action]? {
        guard readsFrames, var bytes = reading else { return nil }
        reading = nil  // one reference while parsing
        defer { reading = bytes }
        let message: RelayInboundFrame
        do {
            guard let frame = try RelayFrameReader.next(from: &bytes, maxFrameSize: limits.maxMessageSize) else {
                return nil
            }
            liveness.silence = .heard
            guard let whole = try assembler.take(frame) else { return [] }
            message = whole
        } catch {
            close(error.closeCode)
            if error.endsTheFrameStream { stopReadingFrames() }
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
        if readsFrames, let bytes = reading, bytes.readableBytes > 0 {
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
        switch state {
        case .paired: actions.append(.flushPeer)
        case .closing(let closing) where closing.peerJoined: actions.append(.flushPeer)
        case .closed(let peerJoined) where peerJoined: actions.append(.flushPeer)
        case .awaitingPeer, .closing, .closed: break
        case .modifying: preconditionFailure("state left in .modifying")
        }
        countForwarded()
        return takeActions()
    }

    /// The peer's connection is known (it joined, or was there when this side was upgraded): the
    /// pre-pairing queue goes to it, and reading resumes if the queue had paused it.
    mutating func peerJoinedTunnel() -> [Action] {
        switch state {
        case .awaitingPeer(let queue):
            state = .paired
            release(queue)
            for (frame, length) in queue.messages {
                actions.append(.forwardEncoded(frame))
                forwardedInCycle.messages += 1
                forwardedInCycle.bytes += length
            }
        case .closing(var closing) where !closing.peerJoined:
            closing.peerJoined = true
            state = .closing(closing)
        case .paired, .closing, .closed:
            return []
        case .modifying:
            preconditionFailure("state left in .modifying")
        }
        actions.append(.flushPeer)
        countForwarded()
        resume(.queueFull)
        return takeActions()
    }

    /// The peer's socket filled up (`false`) or drained (`true`).
    mutating func peerWritabilityChanged(_ writable: Bool) -> [Action] {
        guard !isClosed else { return [] }
        if writable { resume(.peerNotWritable) } else { pause(.peerNotWritable) }
        return takeActions()
    }

    /// This connection's socket filled up or drained.
    mutating func writabilityChanged(_ writable: Bool) -> [Action] {
        guard !isClosed else { return [] }
        if writable { resume(.notWritable) }
        return takeActions()
    }

    /// The pong asked for by a ``Action/write(_:then:)`` has been written (or failed).
    mutating func pongWritten() -> [Action] {
        guard !isClosed else { return [] }
        liveness.pongInFlight = false
        resume(.pongPending)
        return takeActions()
    }

    /// A ping interval passed: ping a silent client, close one silent since the last ping.
    mutating func pingTick() -> [Action] {
        liveness.pingsSinceTick = 0
        switch liveness.silence {
        case .heard:
            liveness.silence = .quiet
        case .quiet:
            guard isOpen else { break }
            liveness.silence = .pinged
            actions.append(
                .write(RelayOutboundFrame.encode(.ping, payload: ByteBuffer(), allocator: allocator), then: .nothing))
            actions.append(.countPing)
        case .pinged:
            guard isOpen else { break }
            close(.idleTimeout)
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
        var queue: PrePairingQueue?
        switch state {
        case .awaitingPeer(let awaiting):
            queue = awaiting
            state = .closed(peerJoined: false)
        case .paired:
            state = .closed(peerJoined: true)
        case .closing(let closing):
            state = .closed(peerJoined: closing.peerJoined)
        case .closed:
            return []
        case .modifying:
            preconditionFailure("state left in .modifying")
        }
        reading = nil
        partialFrame = nil
        actions.append(.endTunnel(.dropped))
        if pauses.removeAll() { actions.append(.readsPaused(false, reasons: [])) }
        if let queue { release(queue) }
        return takeActions()
    }

    /// The handler leaves the pipeline: gives back the pre-pairing queue's charge.
    mutating func removed() -> [Action] {
        guard case .awaitingPeer(let queue) = state else { return [] }
        state = .awaitingPeer(PrePairingQueue())
        release(queue)
        return takeActions()
    }

    // MARK: Frames and messages

    private var isClosed: Bool {
        switch state {
        case .closed: true
        case .awaitingPeer, .paired, .closing: false
        case .modifying: preconditionFailure("state left in .modifying")
        }
    }

    private mutating func handle(_ frame: RelayInboundFrame, socketWritable: Bool) {
        switch frame.opcode {
        case .binary:
            // Unmasked client frames are not rejected: a relay loses nothing by accepting them.
            guard isOpen else { return }
            message(frame)
        case .text:
            close(.policyViolation)
        case .ping:
            guard isOpen else { return }
            answer(ping: frame, socketWritable: socketWritable)
        case .pong:
            actions.append(.countPong)
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
        switch state {
        case .awaitingPeer:
            enqueue(
                RelayOutboundFrame.encode(
                    .binary, payload: frame.payload, maskKey: frame.maskKey, allocator: allocator), length: length)
        case .paired:
            forwardedInCycle.messages += 1
            forwardedInCycle.bytes += length
            // Smaller messages are not tracked: the peer's high-water mark pauses reading, so at
            // most one of them waits beyond it.
            let tracked = length > limits.inFlightAllowance
            actions.append(.forward(payload: frame.payload, maskKey: frame.maskKey, tracked: tracked))
        case .closing, .closed, .modifying:
            preconditionFailure("messages are only handled while open")
        }
    }

    /// Holds a message for a peer that has not joined. The per-tunnel limits pause reading once
    /// reached (frames already read when the pause takes effect are still queued: at most one
    /// read cycle); the global budget is hard: a message that does not fit closes this side.
    private mutating func enqueue(_ frame: ByteBuffer, length: Int) {
        let charge = length + RelayAccounting.queuedMessageOverhead
        guard budget.reserveQueued(charge) else { return close(.limitExceeded) }
        guard case .awaitingPeer(var queue) = state else { preconditionFailure("queueing while not awaiting the peer") }
        state = .modifying  // one reference to the queue while appending
        queue.messages.append((frame, length))
        queue.chargedBytes += charge
        state = .awaitingPeer(queue)
        if queue.messages.count >= limits.maxQueuedMessages || queue.chargedBytes >= limits.maxQueuedBytesPerTunnel {
            pause(.queueFull)
        }
    }

    /// Gives back what `queue` was charged (its messages are forwarded or dropped).
    private mutating func release(_ queue: PrePairingQueue) {
        guard queue.chargedBytes > 0 else { return }
        actions.append(.releaseQueued(queue.chargedBytes))
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
        liveness.pingsSinceTick += 1
        guard liveness.pingsSinceTick <= limits.maxPingsPerInterval else {
            return stopReadingAndClose(.limitExceeded)
        }
        guard socketWritable else {
            actions.append(.pongSkipped)
            return pause(.notWritable)
        }
        guard !liveness.pongInFlight else {
            actions.append(.pongSkipped)
            return pause(.pongPending)
        }
        liveness.pongInFlight = true
        let pong = RelayOutboundFrame.encode(
            .pong, payload: frame.payload, maskKey: frame.maskKey, allocator: allocator)
        actions.append(.write(pong, then: .pongWritten))
    }

    /// For a flood or a refused budget: stops reading and decoding at once and closes with `code`;
    /// the close frame goes out, TCP after the close timeout.
    private mutating func stopReadingAndClose(_ code: RelayCloseCode) {
        partialFrame = nil
        reading = nil
        pause(.closing)
        actions.append(.discardInbound)
        close(code)
        stopReadingFrames()
    }

    /// Nothing more read is looked at (the frame stream cannot be parsed, or is discarded). Only
    /// after ``close(_:)``.
    private mutating func stopReadingFrames() {
        switch state {
        case .closing(var closing):
            closing.readsFrames = false
            state = .closing(closing)
        case .closed:
            break
        case .awaitingPeer, .paired, .modifying:
            preconditionFailure("frames stop being read only once closing")
        }
    }

    /// Stops reading for `reason` (reading resumes when every reason is gone).
    private mutating func pause(_ reason: RelayReadPause) {
        guard pauses.add(reason) else { return }
        actions.append(.setReading(false))
        actions.append(.readsPaused(true, reasons: pauses.reasons))
    }

    private mutating func resume(_ reason: RelayReadPause) {
        guard pauses.remove(reason) else { return }
        actions.append(.readsPaused(false, reasons: []))
        actions.append(.setReading(true))
    }

    private mutating func receivedClose(_ frame: RelayInboundFrame) {
        switch state {
        case .awaitingPeer(let queue):
            state = .closing(Closing(initiator: .client, peerJoined: false, readsFrames: true))
            release(queue)
        case .paired:
            state = .closing(Closing(initiator: .client, peerJoined: true, readsFrames: true))
        case .closing, .closed:
            // The client's reply to the relay's close (or a second close): the handshake is over.
            actions.append(.closeConnection)
            return
        case .modifying:
            preconditionFailure("state left in .modifying")
        }
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
    /// or after the close timeout. Does nothing once closing.
    private mutating func close(_ code: RelayCloseCode) {
        switch state {
        case .awaitingPeer(let queue):
            state = .closing(Closing(initiator: .relay(code), peerJoined: false, readsFrames: true))
            release(queue)
        case .paired:
            state = .closing(Closing(initiator: .relay(code), peerJoined: true, readsFrames: true))
        case .closing, .closed:
            return
        case .modifying:
            preconditionFailure("state left in .modifying")
        }
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
