import NIOCore
import NIOWebSocket

/// One side of a tunnel after the WebSocket upgrade: the only handler after TLS, and the I/O shell
/// of ``RelayConnectionStateMachine``. It feeds the machine the channel's events (bytes read,
/// writability, the peer joining, ping ticks, close commands) and performs the actions it returns
/// on this connection, its peer (``RelayPeerLink``), the tunnel, the relay-wide budgets and the
/// metrics. `RelayTunnelHandlerTests` checks that mapping on `EmbeddedChannel`s.
final class RelayTunnelHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// What the shell holds besides the machine: the way to the peer and this connection's timers.
    private struct Links {
        /// How messages reach the peer once it has joined.
        var peer: RelayPeerLink?
        var closeTimer: RelayTimer?
        /// This connection's group in its loop's ``PingSweeper``.
        var pingGroup: Int?
    }

    private var machine: RelayConnectionStateMachine
    private let pairing: TunnelPairing
    private let relay: RelayContext
    /// This connection's messages in flight.
    private let inFlight: RelayInFlight
    private var links = Links()

    init(side: TunnelSide, pairing: TunnelPairing, relay: RelayContext, inFlight: RelayInFlight) {
        self.pairing = pairing
        self.relay = relay
        self.inFlight = inFlight
        self.machine = RelayConnectionStateMachine(
            side: side, limits: .init(relay.configuration),
            budget: RelayAccountedBudget(accounting: relay.accounting, inFlight: inFlight)
        )
    }

    func handlerAdded(context: ChannelHandlerContext) {
        links.pingGroup = relay.pingSweepers.add(self, context: context)
        lookUpPeer(context: context, closeIfEnded: true)
        if machine.side == .connect {
            pairing.newChannel.pipeline.fireUserInboundEventTriggered(RelayPeerJoined())
        }
        relay.accounting.observer.observe(.tunnelOpened)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        leavePingSweeper(context: context)
        links.closeTimer?.cancel()
        perform(machine.removed(), context: context)
        links.peer?.detach()
        inFlight.end()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch machine.read(Self.unwrapInboundIn(data)) {
        case .parseFrames: break
        case .ignore: return
        }
        while let actions = machine.nextFrame(socketWritable: context.channel.isWritable) {
            perform(actions, context: context)
        }
        perform(machine.endOfRead(), context: context)
    }

    /// Sends what was forwarded in this read cycle.
    func channelReadComplete(context: ChannelHandlerContext) {
        perform(machine.readComplete(), context: context)
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let command as RelayCloseCommand:
            perform(machine.closeCommand(command.code), context: context)
        case is RelayPeerJoined:
            // Only pick up the channel: if the peer has already ended, its RelayCloseCommand is
            // queued behind the messages it forwarded, and closing now would overtake them.
            lookUpPeer(context: context, closeIfEnded: false)
        case let writability as RelayPeerWritability:
            perform(machine.peerWritabilityChanged(writability.writable), context: context)
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        let writable = context.channel.isWritable
        links.peer?.channel.pipeline.fireUserInboundEventTriggered(RelayPeerWritability(writable: writable))
        perform(machine.writabilityChanged(writable), context: context)
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        perform(machine.connectionClosed(), context: context)
        leavePingSweeper(context: context)
        links.closeTimer?.cancel()
        inFlight.end()
        context.fireChannelInactive()
    }

    /// Framing errors are handled where frames are read; what arrives here comes from the socket
    /// or TLS: the connection is gone.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Called by the loop's ``PingSweeper`` every ping interval.
    func pingTick(context: ChannelHandlerContext) {
        perform(machine.pingTick(), context: context)
    }

    /// Picks up the peer channel once it has joined (the machine then flushes its queue). With
    /// `closeIfEnded` (when this handler is added, so no close command can have reached it yet),
    /// closes if the peer has already ended.
    private func lookUpPeer(context: ChannelHandlerContext, closeIfEnded: Bool) {
        let (channel, ended) = pairing.peer(of: machine.side)
        if closeIfEnded, let ended {
            return perform(machine.closeCommand(ended.codeForPeer), context: context)
        }
        guard links.peer == nil, let channel else { return }
        links.peer = RelayPeerLink(channel: channel, from: context.eventLoop)
        perform(machine.peerJoinedTunnel(), context: context)
    }

    private func leavePingSweeper(context: ChannelHandlerContext) {
        guard let group = links.pingGroup else { return }
        links.pingGroup = nil
        relay.pingSweepers.remove(self, group: group, context: context)
    }

    // MARK: Actions

    private func perform(_ actions: [RelayConnectionStateMachine.Action], context: ChannelHandlerContext) {
        for action in actions { perform(action, context: context) }
    }

    private func perform(_ action: RelayConnectionStateMachine.Action, context: ChannelHandlerContext) {
        let channel = context.channel
        switch action {
        case .write(let frame, .nothing):
            context.writeAndFlush(Self.wrapOutboundOut(frame), promise: nil)
        case .write(let frame, .pongWritten):
            let written = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(Self.wrapOutboundOut(frame), promise: written)
            written.futureResult.assumeIsolated().whenComplete { [self] _ in
                perform(machine.pongWritten(), context: context)
            }
        case .write(let frame, .closeConnection):
            context.writeAndFlush(Self.wrapOutboundOut(frame)).whenComplete { _ in channel.close(promise: nil) }
        case .forward(let payload, let maskKey, let tracked):
            forward(payload, maskKey: maskKey, tracked: tracked, context: context)
        case .forwardEncoded(let frame):
            links.peer?.write(frame: frame)
        case .flushPeer:
            links.peer?.flush()
        case .countForwarded(let messages, let bytes):
            relay.metrics.messagesForwarded.increment(by: Int64(messages))
            relay.metrics.bytesForwarded.increment(by: Int64(bytes))
        case .setReading(let on):
            guard !on || channel.isActive else { return }
            try? channel.syncOptions?.setOption(.autoRead, value: on)
        case .readsPaused(let paused, let reasons):
            relay.accounting.readsPaused(paused, reasons: reasons)
        case .discardInbound:
            try? context.pipeline.syncOperations.addHandler(RelayDiscardInbound(), position: .first)
        case .endTunnel(let reason):
            relay.end(pairing, side: machine.side, reason: reason)
        case .countClose(let code):
            relay.metrics.closed(with: code)
        case .startCloseTimer:
            links.closeTimer = relay.timers.schedule(
                on: context.eventLoop, in: TimeAmount(relay.configuration.closeTimeout)
            ) {
                channel.close(promise: nil)
            }
        case .closeConnection:
            context.close(promise: nil)
        case .releaseQueued(let bytes):
            relay.accounting.releaseQueued(bytes)
        case .pongSkipped:
            relay.accounting.pongSkipped()
        case .countPing:
            relay.accounting.pinged()
        case .countPong:
            relay.accounting.pongReceived()
        }
    }

    /// Writes a whole message to the peer; the read cycle's end flushes it. A message larger than
    /// the in-flight allowance (`tracked`) is charged to ``RelayInFlight`` until written.
    private func forward(
        _ payload: ByteBuffer, maskKey: WebSocketMaskingKey?, tracked: Bool, context: ChannelHandlerContext
    ) {
        let length = payload.readableBytes
        if tracked { inFlight.forwarding(length) }
        guard let link = links.peer else { return }
        // Backpressure comes back as RelayPeerWritability from the peer's handler.
        guard tracked else { return link.write(payload: payload, maskKey: maskKey) }
        let written = link.channel.eventLoop.makePromise(of: Void.self)
        link.write(payload: payload, maskKey: maskKey, promise: written)
        let inFlight = self.inFlight
        written.futureResult.hop(to: context.eventLoop).assumeIsolated().whenComplete { _ in inFlight.written(length) }
    }
}
