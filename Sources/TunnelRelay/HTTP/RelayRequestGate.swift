import HybridCore
import Logging
import NIOCore
import NIOHTTP1

/// The one handler between the socket (or TLS) and the tunnel: it reads the request head
/// (``RelayRequestHeadParser``), classifies it (``RelayRequestRouter``), does the registry work for
/// `/cable/new` and `/cable/connect`, and either writes the 101 response and replaces itself with a
/// ``RelayTunnelHandler`` (the bytes read after the head go to that handler), or answers everything
/// else itself (`/healthz`, `/metrics`, error statuses) and closes the connection after that answer.
///
/// One handler instead of NIO's HTTP codec and upgrade handlers: a connection adds and removes one
/// handler before the tunnel, not five, and the responses are written as single buffers.
final class RelayRequestGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let handshake: RelayHandshake
    private let context: RelayContext
    private let conditions: RelayRequestRouter.ConnectionConditions
    private var state: State = .awaitingHead

    private enum State {
        case awaitingHead
        /// Answered (or answering), or upgraded; everything else is dropped.
        case done
    }

    private var parser = RelayRequestHeadParser()
    /// Bytes read but not parsed yet (an unfinished line).
    private var buffered: ByteBuffer?

    init(handshake: RelayHandshake, context: RelayContext, conditions: RelayRequestRouter.ConnectionConditions) {
        self.handshake = handshake
        self.context = context
        self.conditions = conditions
    }

    /// Removed at the upgrade or when the connection closes: either way the handshake timer has
    /// nothing left to guard. (Cancelling here instead of in a close callback keeps nothing alive
    /// per open tunnel.)
    func handlerRemoved(context channelContext: ChannelHandlerContext) {
        handshake.timeout?.cancel()
        handshake.timeout = nil
    }

    func channelRead(context channelContext: ChannelHandlerContext, data: NIOAny) {
        guard case .awaitingHead = state else { return }
        var bytes = Self.unwrapInboundIn(data)
        if var earlier = buffered {
            buffered = nil
            earlier.writeBuffer(&bytes)
            bytes = earlier
        }
        let head: HTTPRequestHead?
        do {
            head = try parser.parse(&bytes)
        } catch {
            respond(channelContext, rejection: .badRequest)
            return
        }
        guard let head else {
            if bytes.readableBytes > 0 { buffered = bytes }
            return
        }
        handle(head: head, rest: bytes, channelContext: channelContext)
    }

    private func handle(head: HTTPRequestHead, rest: ByteBuffer, channelContext: ChannelHandlerContext) {
        switch RelayRequestRouter.route(head, conditions: conditions) {
        // The status only: `/healthz` is on the public port, and live counts are for `/metrics`
        // on its loopback listener.
        case .health:
            respond(channelContext, status: .ok, body: Array("ok\n".utf8))
        case .draining:
            respond(channelContext, status: .serviceUnavailable, body: Array("draining\n".utf8))
        case .metrics:
            respond(
                channelContext, status: .ok, body: context.metrics.exposition(),
                contentType: "text/plain; version=0.0.4; charset=utf-8")
        case .reject(let rejection):
            respond(channelContext, rejection: rejection)
        case .new(let tunnelID):
            let channel = channelContext.channel
            switch context.registry.register(
                tunnelID: tunnelID, channel: channel, address: handshake.client, now: .now())
            {
            case .duplicate:
                respond(channelContext, rejection: .duplicateTunnel)
            case .full:
                respond(channelContext, rejection: .pendingLimit)
            case .addressFull:
                respond(channelContext, rejection: .addressPendingLimit)
            case .registered(let pairing):
                context.watch(pairing, side: .new, channel: channel)
                context.startPendingTimer(pairing)
                upgrade(.new, pairing: pairing, head: head, rest: rest, channelContext: channelContext)
            }
        case .connect(let routingID, let tunnelID):
            let channel = channelContext.channel
            guard let pairing = context.registry.claim(routingID: routingID, tunnelID: tunnelID, channel: channel)
            else {
                respond(channelContext, rejection: .unknownTunnel)
                return
            }
            context.watch(pairing, side: .connect, channel: channel)
            context.startLifetimeTimer(pairing, connectChannel: channel)
            context.metrics.pairingLatency.recordNanoseconds((NIODeadline.now() - pairing.createdAt).nanoseconds)
            context.logger.debug(
                "tunnel paired",
                metadata: ["tunnel.id": "\(pairing.tunnelID)", "routing.id": "\(pairing.routingID)"]
            )
            upgrade(.connect, pairing: pairing, head: head, rest: rest, channelContext: channelContext)
        }
    }

    /// Writes the 101 response, puts a ``RelayTunnelHandler`` after this handler, hands it the bytes
    /// that followed the head, and leaves the pipeline. (The router has checked the request: one
    /// `Sec-WebSocket-Key`, version 13.)
    private func upgrade(
        _ side: TunnelSide, pairing: TunnelPairing, head: HTTPRequestHead, rest: ByteBuffer,
        channelContext: ChannelHandlerContext
    ) {
        state = .done
        handshake.timeout?.cancel()
        handshake.timeout = nil
        let key = head.headers["Sec-WebSocket-Key"].first ?? ""
        let response = RelayHTTPResponse.switchingProtocols(
            key: key, routingID: side == .new ? pairing.routingID : nil)
        channelContext.writeAndFlush(Self.wrapOutboundOut(response), promise: nil)
        let inFlight = RelayInFlight(
            accounting: context.accounting, allowance: context.configuration.inFlightAllowancePerConnection
        )
        let tunnel = RelayTunnelHandler(side: side, pairing: pairing, relay: context, inFlight: inFlight)
        do {
            try channelContext.pipeline.syncOperations.addHandler(tunnel, position: .after(self))
        } catch {
            channelContext.close(promise: nil)
            return
        }
        if rest.readableBytes > 0 { channelContext.fireChannelRead(Self.wrapInboundOut(rest)) }
        channelContext.pipeline.syncOperations.removeHandler(context: channelContext, promise: nil)
    }

    func userInboundEventTriggered(context channelContext: ChannelHandlerContext, event: Any) {
        switch event {
        case is RelayHandshakeTimedOut:
            respond(channelContext, rejection: .handshakeTimeout)
        case is RelayCloseCommand:
            // Shutdown or peer end before the upgrade finished.
            respond(channelContext, rejection: .shuttingDown)
        default:
            channelContext.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context channelContext: ChannelHandlerContext, error: any Error) {
        channelContext.close(promise: nil)
    }

    private func respond(_ channelContext: ChannelHandlerContext, rejection: RelayRejection) {
        guard case .awaitingHead = state else { return }
        context.metrics.rejected(rejection)
        context.logger.debug(
            "request rejected",
            metadata: ["reject.reason": "\(rejection.rawValue)", "peer.address": "\(handshake.client?.key ?? "?")"]
        )
        respond(channelContext, status: rejection.status, body: Array((rejection.message + "\n").utf8))
    }

    /// Writes a complete response and closes once it is written.
    private func respond(
        _ channelContext: ChannelHandlerContext, status: HTTPResponseStatus, body: some Collection<UInt8>,
        contentType: String = "text/plain; charset=utf-8"
    ) {
        guard case .awaitingHead = state else { return }
        state = .done
        buffered = nil
        let response = RelayHTTPResponse.closing(status, body: body, contentType: contentType)
        let channel = channelContext.channel
        channelContext.writeAndFlush(Self.wrapOutboundOut(response)).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}
