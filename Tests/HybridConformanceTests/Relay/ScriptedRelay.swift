import HybridCore
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization

/// A small relay on 127.0.0.1:0 for the fault tests: it does what protocol.md §5 asks, except the
/// one thing its ``Fault`` breaks. With no fault it must pass every relay check (the control).
final class ScriptedRelay: Sendable {
    /// One deliberate deviation from §5.
    enum Fault: String, Sendable, CaseIterable {
        /// The 101 has no `Sec-WebSocket-Protocol`.
        case noSubprotocolEcho
        /// Upgrades requests that do not offer `fido.cable`.
        case acceptsMissingSubprotocol
        /// Upgrades POST like GET.
        case acceptsPOST
        /// `X-caBLE-Routing-ID` carries 4 bytes (8 hex digits).
        case longRoutingIDHeader
        /// Answers 200 (no upgrade) to `/cable/connect` with an unknown routing ID: a refusal, with
        /// another status than our relay's 404.
        case okForUnknownRoutingID
        /// Upgrades `/cable/connect` with a routing ID it did not hand out, joining the tunnel anyway.
        case upgradesUnknownRoutingID
        /// A duplicate `/cable/new` replaces the pending tunnel instead of being refused.
        case noConflictOnDuplicate
        /// Refuses a duplicate `/cable/new` with 400 instead of our relay's 409.
        case badRequestOnDuplicate
        /// Swaps each pair of messages from `/cable/connect` to `/cable/new`.
        case reordersClientMessages
        /// Drops what `/cable/new` sent before the peer joined.
        case dropsQueuedMessages
        /// Closes a side whose peer sent close with 1011 instead of a 4000-range code.
        case wrongPeerCloseCode
        /// Refuses frames over 64 KiB.
        case capsFramesAt64KiB
        /// Accepts a path with a trailing slash.
        case acceptsTrailingSlash
        /// Serves wss:// with TLS 1.0 and 1.1 only.
        case tls11Only
    }

    private let fault: Fault?
    private let state = Mutex(State())
    private let server: any Channel

    var port: Int { server.localAddress?.port ?? 0 }

    private struct State {
        var nextRoutingID: UInt16 = 0
        var tunnels: [TunnelID: Tunnel] = [:]
    }

    private struct Tunnel {
        let routingID: RoutingID
        var phone: (any Channel)?
        var client: (any Channel)?
        var claimed = false
        /// Messages from the phone before the client joined.
        var queue: [ByteBuffer] = []
        /// The phone ended while the client's upgrade was still completing: close it with this once it joins.
        var phoneEndedWith: UInt16?
    }

    enum Side: Sendable { case phone, client }

    /// What a request head gets: an upgrade with these response headers, or a status.
    enum Decision {
        case upgrade(HTTPHeaders, TunnelID, Side)
        case refuse(HTTPResponseStatus)
    }

    private init(fault: Fault?, server: any Channel) {
        self.fault = fault
        self.server = server
    }

    /// Starts a relay with `fault` (nil: none), runs `body` with its port, then stops it.
    static func with<Result: Sendable>(
        fault: Fault?, _ body: (_ port: Int) async throws -> Result
    ) async throws -> Result {
        let box = Mutex<ScriptedRelay?>(nil)
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                guard let relay = box.withLock({ $0 }) else { return channel.close() }
                return relay.initialize(channel)
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let relay = ScriptedRelay(fault: fault, server: server)
        box.withLock { $0 = relay }
        defer { server.close(promise: nil) }
        return try await body(relay.port)
    }

    private func initialize(_ channel: any Channel) -> EventLoopFuture<Void> {
        if fault == .tls11Only {
            do {
                var tls = TLSConfiguration.makeServerConfiguration(
                    certificateChain: try NIOSSLCertificate.fromPEMFile(InProcessRelay.certificate).map {
                        .certificate($0)
                    },
                    privateKey: .privateKey(try NIOSSLPrivateKey(file: InProcessRelay.key, format: .pem)))
                tls.minimumTLSVersion = .tlsv1
                tls.maximumTLSVersion = .tlsv11
                try channel.pipeline.syncOperations.addHandler(
                    NIOSSLServerHandler(context: NIOSSLContext(configuration: tls)))
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
        let decision = NIOLoopBoundBox<Decision?>(nil, eventLoop: channel.eventLoop)
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: fault == .capsFramesAt64KiB ? 1 << 16 : 1 << 20,
            shouldUpgrade: { channel, head in
                let decided = self.decide(head)
                decision.value = decided
                if case .upgrade(let headers, _, _) = decided { return channel.eventLoop.makeSucceededFuture(headers) }
                return channel.eventLoop.makeSucceededFuture(nil)
            },
            upgradePipelineHandler: { channel, _ in
                guard case .upgrade(_, let tunnelID, let side) = decision.value else {
                    return channel.eventLoop.makeSucceededVoidFuture()
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        SideHandler(relay: self, tunnelID: tunnelID, side: side))
                    self.joined(tunnelID, side, channel)
                }
            }
        )
        return channel.pipeline.configureHTTPServerPipeline(
            withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in })
        ).flatMapThrowing {
            try channel.pipeline.syncOperations.addHandler(Responder(decision: decision))
        }
    }

    private func decide(_ head: HTTPRequestHead) -> Decision {
        guard head.method == .GET || (fault == .acceptsPOST && head.method == .POST) else {
            return .refuse(.methodNotAllowed)
        }
        var uri = head.uri
        if fault == .acceptsTrailingSlash, uri.hasSuffix("/") { uri.removeLast() }
        guard let path = try? TunnelPath(parsing: uri) else { return .refuse(.badRequest) }
        let offered = head.headers["Sec-WebSocket-Protocol"].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard offered.contains(TunnelWebSocket.subprotocol) || fault == .acceptsMissingSubprotocol else {
            return .refuse(.badRequest)
        }
        var headers = HTTPHeaders()
        if fault != .noSubprotocolEcho {
            headers.add(name: "Sec-WebSocket-Protocol", value: TunnelWebSocket.subprotocol)
        }
        switch path {
        case .new(let tunnelID):
            let routingID: RoutingID? = state.withLock { state in
                if state.tunnels[tunnelID] != nil && fault != .noConflictOnDuplicate { return nil }
                state.nextRoutingID &+= 1
                let routingID = RoutingID(bytes: [
                    0x2A, UInt8(state.nextRoutingID >> 8), UInt8(state.nextRoutingID & 0xFF),
                ])!
                state.tunnels[tunnelID] = Tunnel(routingID: routingID)
                return routingID
            }
            guard let routingID else { return .refuse(fault == .badRequestOnDuplicate ? .badRequest : .conflict) }
            headers.add(
                name: TunnelWebSocket.routingIDHeader,
                value: routingID.hex + (fault == .longRoutingIDHeader ? "00" : ""))
            return .upgrade(headers, tunnelID, .phone)
        case .connect(let routingID, let tunnelID):
            let found: Bool? = state.withLock { state in
                guard let tunnel = state.tunnels[tunnelID], !tunnel.claimed else { return false }
                guard tunnel.routingID == routingID || fault == .upgradesUnknownRoutingID else { return nil }
                state.tunnels[tunnelID]?.claimed = true
                return true
            }
            switch found {
            case true?: return .upgrade(headers, tunnelID, .client)
            case nil: return .refuse(fault == .okForUnknownRoutingID ? .ok : .notFound)
            case false?: return .refuse(.notFound)
            }
        case .contact:
            return .refuse(.notImplemented)
        }
    }

    private func joined(_ tunnelID: TunnelID, _ side: Side, _ channel: any Channel) {
        let phoneEndedWith: UInt16? = state.withLock { state in
            switch side {
            case .phone:
                state.tunnels[tunnelID]?.phone = channel
            case .client:
                state.tunnels[tunnelID]?.client = channel
                let queue = state.tunnels[tunnelID]?.queue ?? []
                state.tunnels[tunnelID]?.queue = []
                if fault != .dropsQueuedMessages {
                    for message in queue {
                        channel.write(WebSocketFrame(fin: true, opcode: .binary, data: message), promise: nil)
                    }
                }
                channel.flush()
                if let code = state.tunnels[tunnelID]?.phoneEndedWith {
                    state.tunnels[tunnelID] = nil
                    return code
                }
            }
            return nil
        }
        if let phoneEndedWith { close(channel, peerCode: phoneEndedWith) }
    }

    /// Forwards one message from `side`, or queues it while the client has not joined.
    fileprivate func forward(_ message: ByteBuffer, from side: Side, in tunnelID: TunnelID) {
        state.withLock { state in
            guard let tunnel = state.tunnels[tunnelID] else { return }
            let peer = side == .phone ? tunnel.client : tunnel.phone
            guard let peer else {
                if side == .phone { state.tunnels[tunnelID]?.queue.append(message) }
                return
            }
            peer.writeAndFlush(WebSocketFrame(fin: true, opcode: .binary, data: message), promise: nil)
        }
    }

    /// `side` ended (close frame or TCP): close the other side with `code` and forget the tunnel.
    fileprivate func ended(_ side: Side, in tunnelID: TunnelID, peerCode: UInt16) {
        let peer: (any Channel)? = state.withLock { state in
            guard let tunnel = state.tunnels[tunnelID] else { return nil }
            if side == .phone, tunnel.claimed, tunnel.client == nil {
                // The client's upgrade is still completing on its own event loop.
                if tunnel.phoneEndedWith == nil { state.tunnels[tunnelID]?.phoneEndedWith = peerCode }
                return nil
            }
            state.tunnels[tunnelID] = nil
            return side == .phone ? tunnel.client : tunnel.phone
        }
        if let peer { close(peer, peerCode: peerCode) }
    }

    /// Sends `peer` a close frame with `peerCode` (or the fault's code), then closes it.
    private func close(_ peer: any Channel, peerCode: UInt16) {
        var data = peer.allocator.buffer(capacity: 2)
        data.writeInteger(fault == .wrongPeerCloseCode ? 1011 : peerCode)
        peer.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)).whenComplete { _ in
            peer.close(promise: nil)
        }
    }

    /// One side of a tunnel after the upgrade.
    private final class SideHandler: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame
        let relay: ScriptedRelay
        let tunnelID: TunnelID
        let side: Side
        /// The message held back by ``Fault/reordersClientMessages``.
        var held: ByteBuffer?

        init(relay: ScriptedRelay, tunnelID: TunnelID, side: Side) {
            self.relay = relay
            self.tunnelID = tunnelID
            self.side = side
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = Self.unwrapInboundIn(data)
            switch frame.opcode {
            case .binary:
                let message = frame.unmaskedData
                if relay.fault == .reordersClientMessages, side == .client {
                    if let first = held {
                        held = nil
                        relay.forward(message, from: side, in: tunnelID)
                        relay.forward(first, from: side, in: tunnelID)
                    } else {
                        held = message
                    }
                } else {
                    relay.forward(message, from: side, in: tunnelID)
                }
            case .ping:
                context.writeAndFlush(
                    Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)),
                    promise: nil)
            case .connectionClose:
                relay.ended(side, in: tunnelID, peerCode: 4000)
                var echo = context.channel.allocator.buffer(capacity: 2)
                echo.writeInteger(UInt16(1000))
                let channel = context.channel
                context.writeAndFlush(
                    Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: echo))
                )
                .whenComplete { _ in channel.close(promise: nil) }
            default:
                break
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            relay.ended(side, in: tunnelID, peerCode: 4001)
            context.fireChannelInactive()
        }
    }

    /// Answers refused requests with the decided status and closes; passes upgraded traffic on.
    private final class Responder: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let decision: NIOLoopBoundBox<Decision?>

        init(decision: NIOLoopBoundBox<Decision?>) { self.decision = decision }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            // After an upgrade the WebSocket decoder sits behind this handler: pass the bytes on.
            if case .upgrade = decision.value {
                context.fireChannelRead(data)
                return
            }
            guard case .head = Self.unwrapInboundIn(data) else { return }
            var status = HTTPResponseStatus.badRequest
            if case .refuse(let decided) = decision.value { status = decided }
            var headers = HTTPHeaders()
            headers.add(name: "Content-Length", value: "0")
            headers.add(name: "Connection", value: "close")
            context.write(
                Self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                promise: nil)
            let channel = context.channel
            context.writeAndFlush(Self.wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
