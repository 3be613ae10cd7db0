import HybridCore
import Logging
import NIOCore
import NIOHTTP1

/// The first handler of every connection, in front of NIO's upgrade handler. It classifies the
/// request head (``RelayRequestRouter``), does the registry work for `/cable/new` and
/// `/cable/connect`, answers everything else itself (`/healthz`, `/metrics`, error statuses) and
/// closes the connection after that answer. Accepted upgrades are passed on, with the decision
/// stored in ``RelayHandshake`` for the WebSocket upgrader to read.
final class RelayRequestGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let handshake: RelayHandshake
    private let context: RelayContext
    private let conditions: RelayRequestRouter.ConnectionConditions
    private var state: State = .awaitingHead

    private enum State {
        case awaitingHead
        /// Passing the upgrade request on to the upgrade handler.
        case forwarding
        /// Answered (or answering); everything else is dropped.
        case answered
    }

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
        let part = Self.unwrapInboundIn(data)
        switch state {
        case .forwarding:
            channelContext.fireChannelRead(data)
        case .answered:
            break
        case .awaitingHead:
            guard case .head(let head) = part else {
                respond(channelContext, rejection: .badRequest)
                return
            }
            handle(head: head, data: data, channelContext: channelContext)
        }
    }

    private func handle(head: HTTPRequestHead, data: NIOAny, channelContext: ChannelHandlerContext) {
        switch RelayRequestRouter.route(head, conditions: conditions) {
        case .health:
            let counts = context.registry.counts
            respond(channelContext, status: .ok, body: "ok pending=\(counts.pending) paired=\(counts.paired)\n")
        case .draining:
            let counts = context.registry.counts
            respond(
                channelContext, status: .serviceUnavailable,
                body: "draining pending=\(counts.pending) paired=\(counts.paired)\n"
            )
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
                accept(.new(pairing), data: data, channelContext: channelContext)
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
            accept(.connect(pairing), data: data, channelContext: channelContext)
        }
    }

    private func accept(_ upgrade: RelayHandshake.Accepted, data: NIOAny, channelContext: ChannelHandlerContext) {
        handshake.accepted = upgrade
        state = .forwarding
        channelContext.fireChannelRead(data)
    }

    func userInboundEventTriggered(context channelContext: ChannelHandlerContext, event: Any) {
        switch event {
        case is RelayHandshakeTimedOut:
            if state == .awaitingHead {
                respond(channelContext, rejection: .handshakeTimeout)
            } else {
                channelContext.close(promise: nil)
            }
        case is RelayCloseCommand:
            // Shutdown or peer end before the upgrade finished.
            if state == .awaitingHead {
                respond(channelContext, rejection: .shuttingDown)
            } else {
                channelContext.close(promise: nil)
            }
        default:
            channelContext.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context channelContext: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError, state == .awaitingHead {
            respond(channelContext, rejection: .badRequest)
        } else {
            channelContext.close(promise: nil)
        }
    }

    private func respond(_ channelContext: ChannelHandlerContext, rejection: RelayRejection) {
        context.metrics.rejected(rejection)
        context.logger.debug(
            "request rejected",
            metadata: ["reject.reason": "\(rejection.rawValue)", "peer.address": "\(handshake.client?.key ?? "?")"]
        )
        respond(channelContext, status: rejection.status, body: rejection.message + "\n")
    }

    private func respond(
        _ channelContext: ChannelHandlerContext,
        status: HTTPResponseStatus,
        body: some Collection<UInt8>,
        contentType: String = "text/plain; charset=utf-8"
    ) {
        guard state != .answered else { return }
        state = .answered
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(body.count))
        headers.add(name: "Connection", value: "close")
        var buffer = channelContext.channel.allocator.buffer(capacity: body.count)
        buffer.writeBytes(body)
        channelContext.write(
            Self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil)
        channelContext.write(Self.wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let channel = channelContext.channel
        channelContext.writeAndFlush(Self.wrapOutboundOut(.end(nil))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    private func respond(_ channelContext: ChannelHandlerContext, status: HTTPResponseStatus, body: String) {
        respond(channelContext, status: status, body: Array(body.utf8))
    }
}
