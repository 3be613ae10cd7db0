import NIOCore
import NIOWebSocket

/// One side of a tunnel after the WebSocket upgrade: checks each message against the limits and
/// forwards it verbatim to the peer connection (queueing on the `/cable/new` side until the peer
/// joins), answers pings, pings silent peers, and closes with a ``RelayCloseCode`` that says why.
///
/// It never looks inside a message and never logs one.
final class RelayTunnelHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let side: TunnelSide
    private let pairing: TunnelPairing
    private let relay: RelayContext

    private var peer: (any Channel)?
    private var queue: [WebSocketFrame] = []
    private var messages = 0
    private var bytes = 0
    private var closing = false
    private var readSinceTick = false
    private var pingOutstanding = false
    private var closeTimer: Scheduled<Void>?
    /// This connection's group in its loop's ``PingSweeper``.
    private var pingGroup: Int?

    init(side: TunnelSide, pairing: TunnelPairing, relay: RelayContext) {
        self.side = side
        self.pairing = pairing
        self.relay = relay
    }

    func handlerAdded(context: ChannelHandlerContext) {
        pingGroup = relay.pingSweepers.sweeper(on: context.eventLoop)?.add(self, context: context)
        lookUpPeer(context: context, closeIfEnded: true)
        if side == .connect {
            pairing.newChannel.pipeline.fireUserInboundEventTriggered(RelayPeerJoined())
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        leavePingSweeper(context: context)
        closeTimer?.cancel()
        queue = []
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = Self.unwrapInboundIn(data)
        readSinceTick = true
        pingOutstanding = false
        switch frame.opcode {
        case .binary:
            // Unmasked client frames are not rejected: the aggregator drops the mask bit of
            // reassembled messages, and a relay loses nothing by accepting them.
            guard !closing else { return }
            message(frame, context: context)
        case .text:
            close(context, code: .policyViolation)
        case .ping:
            guard !closing else { return }
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(Self.wrapOutboundOut(pong), promise: nil)
        case .pong:
            break
        case .connectionClose:
            receivedClose(frame, context: context)
        default:
            close(context, code: .protocolError)
        }
    }

    private func message(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        let length = frame.length
        guard length > 0 else { return close(context, code: .policyViolation) }
        messages += 1
        bytes += length
        let limits = relay.configuration
        guard messages <= limits.maxMessagesPerDirection, bytes <= limits.maxBytesPerDirection else {
            return close(context, code: .limitExceeded)
        }
        let outbound = WebSocketFrame(fin: true, opcode: .binary, data: frame.unmaskedData)
        guard let peer else {
            guard queue.count < limits.maxQueuedMessages else { return close(context, code: .limitExceeded) }
            queue.append(outbound)
            return
        }
        forward(outbound, to: peer, context: context)
    }

    private func forward(_ frame: WebSocketFrame, to peer: any Channel, context: ChannelHandlerContext) {
        relay.metrics.messagesForwarded.increment()
        relay.metrics.bytesForwarded.increment(by: Int64(frame.length))
        peer.writeAndFlush(frame, promise: nil)
        if !peer.isWritable {
            // Backpressure: stop reading until the peer's socket drains (RelayPeerWritability).
            context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        }
    }

    private func receivedClose(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        if closing {
            context.close(promise: nil)
            return
        }
        closing = true
        relay.end(pairing, side: side, reason: .closeFrame)
        // Echo the close code (RFC 6455 §5.5.1), then close the TCP connection.
        var data = frame.unmaskedData
        var echo = context.channel.allocator.buffer(capacity: 2)
        if let code: UInt16 = data.readInteger() { echo.writeInteger(code) }
        let channel = context.channel
        context.writeAndFlush(Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: echo)))
            .whenComplete { _ in channel.close(promise: nil) }
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
            context.channel.setOption(ChannelOptions.autoRead, value: writability.writable).whenComplete { _ in }
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        let writable = context.channel.isWritable
        peer?.pipeline.fireUserInboundEventTriggered(RelayPeerWritability(writable: writable))
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        relay.end(pairing, side: side, reason: .dropped)
        leavePingSweeper(context: context)
        closeTimer?.cancel()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case NIOWebSocketError.invalidFrameLength, NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge:
            close(context, code: .messageTooBig)
        case is NIOWebSocketError, is NIOWebSocketFrameAggregator.Error:
            close(context, code: .protocolError)
        default:
            // I/O errors: the connection is gone.
            context.close(promise: nil)
        }
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
        let queued = queue
        queue = []
        for frame in queued { forward(frame, to: channel, context: context) }
    }

    private func leavePingSweeper(context: ChannelHandlerContext) {
        guard let group = pingGroup else { return }
        pingGroup = nil
        relay.pingSweepers.sweeper(on: context.eventLoop)?.remove(self, group: group)
    }

    /// Called by the loop's ``PingSweeper`` every ping interval.
    func pingTick(context: ChannelHandlerContext) {
        defer { readSinceTick = false }
        guard !readSinceTick, !closing else { return }
        if pingOutstanding {
            close(context, code: .idleTimeout)
        } else {
            pingOutstanding = true
            context.writeAndFlush(Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer())), promise: nil)
        }
    }

    /// Sends a close frame with `code`, ends this side, and drops TCP when the other end answers
    /// or after ``RelayConfiguration/closeTimeout``.
    private func close(_ context: ChannelHandlerContext, code: RelayCloseCode) {
        guard !closing else { return }
        closing = true
        queue = []
        relay.end(pairing, side: side, reason: .relay(code))
        relay.metrics.closed(with: code)
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code.webSocketErrorCode)
        context.writeAndFlush(Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)), promise: nil)
        let channel = context.channel
        closeTimer = context.eventLoop.scheduleTask(in: TimeAmount(relay.configuration.closeTimeout)) {
            channel.close(promise: nil)
        }
    }
}
