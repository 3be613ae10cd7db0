import NIOCore
import NIOWebSocket

/// One side of a tunnel after the WebSocket upgrade: the only handler after TLS. It cuts frames
/// out of the bytes read (``RelayFrameReader``), reassembles fragmented messages
/// (``RelayMessageAssembler``), checks each message against the limits and forwards it to the peer
/// connection unmasked and re-framed (queueing on the `/cable/new` side until the peer joins),
/// answers pings, pings silent peers, and closes with a ``RelayCloseCode`` that says why.
///
/// What it holds is bounded whatever the client sends: it stops reading (``RelayReadPause``) while
/// the peer's socket is full, while the pre-pairing queue is full, and while a pong cannot be
/// written; it has at most one pong in flight and answers no ping while its own socket is full,
/// so a client that floods pings without reading ends up paused and then idle-closed. Messages
/// in flight beyond a small allowance are charged to a relay-wide budget (``RelayInFlight``); a
/// connection that would exceed it is closed with ``RelayCloseCode/tryAgainLater`` and no longer read.
///
/// It never looks inside a message and never logs one.
final class RelayTunnelHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let side: TunnelSide
    private let pairing: TunnelPairing
    private let relay: RelayContext
    /// This connection's messages in flight.
    private let inFlight: RelayInFlight
    /// The start of a frame that has not arrived whole (copied out of the read buffer).
    private var partialFrame: ByteBuffer?
    private var assembler: RelayMessageAssembler
    /// Set when the frame stream can no longer be parsed, or is being discarded: nothing more
    /// read is looked at.
    private var stoppedReading = false
    /// Messages and bytes forwarded in this read cycle, added to the metrics once at its end.
    private var forwardedInCycle = (messages: 0, bytes: 0)

    private var peer: (any Channel)?
    /// How messages reach ``peer`` once it has joined.
    private var peerLink: RelayPeerLink?
    /// Encoded messages, with their payload lengths, for a peer that has not joined yet.
    private var queue: [(frame: ByteBuffer, length: Int)] = []
    /// What ``queue`` is charged to the global pre-pairing budget.
    private var queuedBytes = 0
    private var pongInFlight = false
    /// Pings received since the last sweeper tick (``RelayConfiguration/maxPingsPerInterval``).
    private var pingsSinceTick = 0
    private var paused: RelayReadPause = []
    private var messages = 0
    private var bytes = 0
    private var closing = false
    private var readSinceTick = false
    private var pingOutstanding = false
    private var closeTimer: Scheduled<Void>?
    /// This connection's group in its loop's ``PingSweeper``.
    private var pingGroup: Int?

    init(side: TunnelSide, pairing: TunnelPairing, relay: RelayContext, inFlight: RelayInFlight) {
        self.side = side
        self.pairing = pairing
        self.relay = relay
        self.inFlight = inFlight
        self.assembler = RelayMessageAssembler(maxMessageSize: relay.configuration.maxMessageSize)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        pingGroup = relay.pingSweepers.sweeper(on: context.eventLoop)?.add(self, context: context)
        lookUpPeer(context: context, closeIfEnded: true)
        if side == .connect {
            pairing.newChannel.pipeline.fireUserInboundEventTriggered(RelayPeerJoined())
        }
        relay.accounting.probe?(.tunnelOpened)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        leavePingSweeper(context: context)
        closeTimer?.cancel()
        dropQueue()
        peerLink?.detach()
        inFlight.end()
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !stoppedReading else { return }
        var bytes = Self.unwrapInboundIn(data)
        if var partial = partialFrame {
            partialFrame = nil  // one reference while appending: no copy-on-write
            partial.writeBuffer(&bytes)
            bytes = partial
        }
        readFrames(from: &bytes, context: context)
        // The start of a frame still incomplete is copied: a slice would keep the whole read
        // buffer alive (and stop NIO from reusing it).
        if !stoppedReading, bytes.readableBytes > 0 {
            partialFrame = bytes.readerIndex == 0 ? bytes : ByteBuffer(buffer: bytes)
        }
        inFlight.holding(undecoded: partialFrame?.readableBytes ?? 0, fragments: assembler.heldBytes)
        guard inFlight.settle() else { return stopReadingAndClose(context, code: .tryAgainLater) }
    }

    /// Handles every whole frame at the front of `bytes`.
    private func readFrames(from bytes: inout ByteBuffer, context: ChannelHandlerContext) {
        let maxFrameSize = relay.configuration.maxMessageSize
        while !stoppedReading {
            let message: RelayInboundFrame
            do {
                guard let frame = try RelayFrameReader.next(from: &bytes, maxFrameSize: maxFrameSize) else { return }
                readSinceTick = true
                pingOutstanding = false
                guard let whole = try assembler.take(frame) else { continue }
                message = whole
            } catch {
                if error.endsTheFrameStream { stoppedReading = true }
                close(context, code: error.closeCode)
                continue
            }
            handle(message, context: context)
        }
    }

    private func handle(_ frame: RelayInboundFrame, context: ChannelHandlerContext) {
        switch frame.opcode {
        case .binary:
            // Unmasked client frames are not rejected: a relay loses nothing by accepting them.
            guard !closing else { return }
            message(frame, context: context)
        case .text:
            close(context, code: .policyViolation)
        case .ping:
            guard !closing else { return }
            answer(ping: frame, context: context)
        case .pong:
            relay.accounting.probe?(.pongReceived)
        case .connectionClose:
            receivedClose(frame, context: context)
        default:
            close(context, code: .protocolError)
        }
    }

    private func message(_ frame: RelayInboundFrame, context: ChannelHandlerContext) {
        let length = frame.length
        guard length > 0 else { return close(context, code: .policyViolation) }
        messages += 1
        bytes += length
        let limits = relay.configuration
        guard messages <= limits.maxMessagesPerDirection, bytes <= limits.maxBytesPerDirection else {
            return close(context, code: .limitExceeded)
        }
        guard let peerLink else {
            let encoded = RelayOutboundFrame.encode(.binary, payload: frame.payload, maskKey: frame.maskKey, allocator: context.channel.allocator)
            return enqueue(encoded, length: length, context: context)
        }
        forward(frame.payload, maskKey: frame.maskKey, via: peerLink, context: context)
    }

    /// Sends what ``message(_:context:)`` forwarded in this read cycle.
    func channelReadComplete(context: ChannelHandlerContext) {
        peerLink?.flush()
        countForwarded()
        context.fireChannelReadComplete()
    }

    /// Adds this read cycle's forwarded messages to the metrics.
    private func countForwarded() {
        guard forwardedInCycle.messages > 0 else { return }
        relay.metrics.messagesForwarded.increment(by: Int64(forwardedInCycle.messages))
        relay.metrics.bytesForwarded.increment(by: Int64(forwardedInCycle.bytes))
        forwardedInCycle = (0, 0)
    }

    /// Holds a message for a peer that has not joined. The per-tunnel limits pause reading once
    /// reached (frames already read when the pause takes effect are still queued: at most one
    /// read cycle); the global budget is hard: a message that does not fit closes this side.
    private func enqueue(_ frame: ByteBuffer, length: Int, context: ChannelHandlerContext) {
        let charge = length + RelayAccounting.queuedMessageOverhead
        guard relay.accounting.reserveQueued(charge) else { return close(context, code: .limitExceeded) }
        queue.append((frame, length))
        queuedBytes += charge
        let limits = relay.configuration
        if queue.count >= limits.maxQueuedMessages || queuedBytes >= limits.maxQueuedBytesPerTunnel {
            pause(.queueFull, context: context)
        }
    }

    private func dropQueue() {
        queue = []
        relay.accounting.releaseQueued(queuedBytes)
        queuedBytes = 0
    }

    /// Writes a whole message to the peer; ``channelReadComplete(context:)`` flushes it. A message
    /// larger than the in-flight allowance stays in flight (``RelayInFlight``) until written;
    /// smaller ones are not tracked (the peer's high-water mark pauses reading, so at most one of
    /// them waits beyond it), nor is the pre-pairing queue flushed when the peer joins (bounded by
    /// ``RelayConfiguration/maxQueuedBytesPerTunnel`` plus one read cycle).
    private func forward(
        _ payload: ByteBuffer, maskKey: WebSocketMaskingKey?, via link: RelayPeerLink, context: ChannelHandlerContext
    ) {
        let length = payload.readableBytes
        forwardedInCycle.messages += 1
        forwardedInCycle.bytes += length
        // Backpressure comes back as RelayPeerWritability from the peer's handler.
        guard length > relay.configuration.inFlightAllowancePerConnection else {
            link.write(payload: payload, maskKey: maskKey)
            return
        }
        inFlight.forwarding(length)
        let written = link.channel.eventLoop.makePromise(of: Void.self)
        link.write(payload: payload, maskKey: maskKey, promise: written)
        let inFlight = self.inFlight
        written.futureResult.hop(to: context.eventLoop).assumeIsolated().whenComplete { _ in inFlight.written(length) }
    }

    /// Pongs only while this socket is writable and no earlier pong is still being written (RFC
    /// 6455 §5.5.3 allows answering only the latest ping); otherwise stops reading until that
    /// changes. Memory per connection stays one pong, whatever the ping rate.
    private func answer(ping frame: RelayInboundFrame, context: ChannelHandlerContext) {
        pingsSinceTick += 1
        guard pingsSinceTick <= relay.configuration.maxPingsPerInterval else {
            // A flood: stop reading and decoding it at once; the close frame goes out, TCP
            // after closeTimeout.
            return stopReadingAndClose(context, code: .limitExceeded)
        }
        guard context.channel.isWritable else {
            relay.accounting.pongSkipped()
            return pause(.notWritable, context: context)
        }
        guard !pongInFlight else {
            relay.accounting.pongSkipped()
            return pause(.pongPending, context: context)
        }
        pongInFlight = true
        let pong = RelayOutboundFrame.encode(.pong, payload: frame.payload, maskKey: frame.maskKey, allocator: context.channel.allocator)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(Self.wrapOutboundOut(pong), promise: written)
        let channel = context.channel
        written.futureResult.assumeIsolated().whenComplete { [self] _ in
            pongInFlight = false
            resume(.pongPending, channel: channel)
        }
    }

    /// For a flood: stops reading and decoding at once and closes with `code`; the close frame
    /// goes out, TCP after ``RelayConfiguration/closeTimeout``.
    private func stopReadingAndClose(_ context: ChannelHandlerContext, code: RelayCloseCode) {
        stoppedReading = true
        partialFrame = nil
        pause(.closing, context: context)
        try? context.pipeline.syncOperations.addHandler(RelayDiscardInbound(), position: .first)
        close(context, code: code)
    }

    /// Stops reading for `reason` (reading resumes when every reason is gone).
    private func pause(_ reason: RelayReadPause, context: ChannelHandlerContext) {
        guard !paused.contains(reason) else { return }
        let wasReading = paused.isEmpty
        paused.insert(reason)
        guard wasReading else { return }
        try? context.channel.syncOptions?.setOption(.autoRead, value: false)
        relay.accounting.readsPaused(true, reasons: paused)
    }

    private func resume(_ reason: RelayReadPause, context: ChannelHandlerContext) {
        resume(reason, channel: context.channel)
    }

    private func resume(_ reason: RelayReadPause, channel: any Channel) {
        guard paused.contains(reason) else { return }
        paused.remove(reason)
        guard paused.isEmpty else { return }
        relay.accounting.readsPaused(false, reasons: [])
        guard channel.isActive else { return }
        try? channel.syncOptions?.setOption(.autoRead, value: true)
    }

    private func receivedClose(_ frame: RelayInboundFrame, context: ChannelHandlerContext) {
        if closing {
            context.close(promise: nil)
            return
        }
        closing = true
        relay.end(pairing, side: side, reason: .closeFrame)
        // Echo the close code (RFC 6455 §5.5.1), then close the TCP connection.
        let code = frame.payload.getSlice(at: frame.payload.readerIndex, length: min(2, frame.length)) ?? ByteBuffer()
        let echo = RelayOutboundFrame.encode(
            .connectionClose, payload: code.readableBytes == 2 ? code : ByteBuffer(), maskKey: frame.maskKey,
            allocator: context.channel.allocator
        )
        let channel = context.channel
        context.writeAndFlush(Self.wrapOutboundOut(echo)).whenComplete { _ in channel.close(promise: nil) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let command as RelayCloseCommand:
            close(context, code: command.code)
        case is RelayPeerJoined:
            // Only pick up the channel: if the peer has already ended, its RelayCloseCommand is
            // queued behind the messages it forwarded, and closing now would overtake them.
            lookUpPeer(context: context, closeIfEnded: false)
        case let writability as RelayPeerWritability:
            if writability.writable {
                resume(.peerNotWritable, context: context)
            } else {
                pause(.peerNotWritable, context: context)
            }
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        let writable = context.channel.isWritable
        peer?.pipeline.fireUserInboundEventTriggered(RelayPeerWritability(writable: writable))
        if writable { resume(.notWritable, context: context) }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        relay.end(pairing, side: side, reason: .dropped)
        if !paused.isEmpty {
            paused = []
            relay.accounting.readsPaused(false, reasons: [])
        }
        leavePingSweeper(context: context)
        closeTimer?.cancel()
        partialFrame = nil
        inFlight.end()
        context.fireChannelInactive()
    }

    /// Framing errors are handled where frames are read; what arrives here comes from the socket
    /// or TLS: the connection is gone.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    // MARK: Peer, pings, closing

    /// Picks up the peer channel once it has joined (and flushes the queue). With
    /// `closeIfEnded` (when this handler is added, so no close command can have reached it yet),
    /// closes if the peer has already ended.
    private func lookUpPeer(context: ChannelHandlerContext, closeIfEnded: Bool) {
        let (channel, ended) = pairing.peer(of: side)
        if closeIfEnded, let ended {
            close(context, code: ended.codeForPeer)
            return
        }
        guard peer == nil, let channel else { return }
        peer = channel
        let link = RelayPeerLink(channel: channel, from: context.eventLoop)
        peerLink = link
        let queued = queue
        dropQueue()
        for (frame, length) in queued {
            link.write(frame: frame)
            forwardedInCycle.messages += 1
            forwardedInCycle.bytes += length
        }
        link.flush()
        countForwarded()
        resume(.queueFull, context: context)
    }

    private func leavePingSweeper(context: ChannelHandlerContext) {
        guard let group = pingGroup else { return }
        pingGroup = nil
        relay.pingSweepers.sweeper(on: context.eventLoop)?.remove(self, group: group)
    }

    /// Called by the loop's ``PingSweeper`` every ping interval.
    func pingTick(context: ChannelHandlerContext) {
        pingsSinceTick = 0
        defer { readSinceTick = false }
        guard !readSinceTick, !closing else { return }
        if pingOutstanding {
            close(context, code: .idleTimeout)
        } else {
            pingOutstanding = true
            let ping = RelayOutboundFrame.encode(.ping, payload: ByteBuffer(), allocator: context.channel.allocator)
            context.writeAndFlush(Self.wrapOutboundOut(ping), promise: nil)
            relay.accounting.probe?(.pinged)
        }
    }

    /// Sends a close frame with `code`, ends this side, and drops TCP when the other end answers
    /// or after ``RelayConfiguration/closeTimeout``.
    private func close(_ context: ChannelHandlerContext, code: RelayCloseCode) {
        guard !closing else { return }
        closing = true
        dropQueue()
        relay.end(pairing, side: side, reason: .relay(code))
        relay.metrics.closed(with: code)
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code.webSocketErrorCode)
        let frame = RelayOutboundFrame.encode(.connectionClose, payload: data, allocator: context.channel.allocator)
        context.writeAndFlush(Self.wrapOutboundOut(frame), promise: nil)
        let channel = context.channel
        closeTimer = context.eventLoop.scheduleTask(in: TimeAmount(relay.configuration.closeTimeout)) {
            channel.close(promise: nil)
        }
    }
}
