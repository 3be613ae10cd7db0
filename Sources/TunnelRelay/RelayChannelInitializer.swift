import HybridCore
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import NIOWebSocket

/// Builds the pipeline of each accepted connection:
/// `[TLS] → HTTP codec → RelayRequestGate → HTTPServerUpgradeHandler`, which after a WebSocket
/// upgrade (``RelayWebSocketUpgrader``) becomes `[TLS] → RelayTunnelHandler`.
struct RelayChannelInitializer: Sendable {
    let relay: RelayContext
    let rateLimiter: ConnectionRateLimiter
    let tlsContext: NIOSSLContext?
    let shuttingDown: @Sendable () -> Bool
    let health: RelayHealth

    func initialize(_ channel: any Channel) throws {
        let configuration = relay.configuration
        let open = relay.tracker.track(channel)
        if let rejection = refusal(open: open, address: channel.remoteAddress) {
            return refuse(channel, rejection)
        }
        var conditions = RelayRequestRouter.ConnectionConditions()
        conditions.shuttingDown = shuttingDown()
        conditions.draining = health.isDraining
        conditions.metricsEnabled = configuration.metricsEnabled

        let sync = channel.pipeline.syncOperations
        if let tlsContext { try sync.addHandler(NIOSSLServerHandler(context: tlsContext)) }

        let handshake = RelayHandshake()
        let boundHandshake = NIOLoopBound(handshake, eventLoop: channel.eventLoop)
        let relay = self.relay
        let upgrader = RelayWebSocketUpgrader(
            responseHeaders: { _ in Self.responseHeaders(for: boundHandshake.value.accepted) },
            installTunnel: { channel in
                let handshake = boundHandshake.value
                handshake.timeout?.cancel()
                handshake.timeout = nil
                guard let accepted = handshake.accepted else { throw ChannelError.inappropriateOperationForState }
                let (side, pairing): (TunnelSide, TunnelPairing) =
                    switch accepted {
                    case .new(let pairing): (.new, pairing)
                    case .connect(let pairing): (.connect, pairing)
                    }
                let inFlight = RelayInFlight(
                    accounting: relay.accounting, allowance: configuration.inFlightAllowancePerConnection
                )
                try channel.pipeline.syncOperations.addHandler(
                    RelayTunnelHandler(side: side, pairing: pairing, relay: relay, inFlight: inFlight)
                )
            }
        )

        let encoder = HTTPResponseEncoder()
        let decoder = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes))
        let gate = RelayRequestGate(handshake: handshake, context: relay, conditions: conditions)
        let upgradeHandler = HTTPServerUpgradeHandler(
            upgraders: [upgrader],
            httpEncoder: encoder,
            extraHTTPHandlers: [decoder, gate],
            upgradeCompletionHandler: { _ in }
        )
        try sync.addHandlers([encoder, decoder, gate, upgradeHandler])

        let timeout = channel.eventLoop.scheduleTask(in: TimeAmount(configuration.handshakeTimeout)) {
            channel.pipeline.fireUserInboundEventTriggered(RelayHandshakeTimedOut())
        }
        handshake.timeout = timeout
    }

    /// Why a connection must be refused at accept, if it must: the global and per-address
    /// connection caps, then the per-address rate limit (a capped connection takes no token).
    private func refusal(open: (total: Int, fromAddress: Int), address: SocketAddress?) -> RelayRejection? {
        let configuration = relay.configuration
        if open.total > configuration.maxConnections { return .connectionLimit }
        if configuration.maxConnectionsPerIP > 0, open.fromAddress > configuration.maxConnectionsPerIP {
            return .addressConnectionLimit
        }
        if !rateLimiter.allow(address, now: .now()) { return .rateLimited }
        return nil
    }

    /// Refuses at once, without reading the request: the descriptor is freed as soon as the
    /// answer is written (a plain connection gets the status line; TLS just closes).
    private func refuse(_ channel: any Channel, _ rejection: RelayRejection) {
        relay.metrics.rejected(rejection)
        guard tlsContext == nil else {
            channel.close(promise: nil)
            return
        }
        let response = ByteBuffer(string: rejection.earlyResponse)
        channel.writeAndFlush(response).whenComplete { _ in channel.close(promise: nil) }
    }

    /// The 101 response headers: the subprotocol, and for `/cable/new` the routing ID.
    private static func responseHeaders(for accepted: RelayHandshake.Accepted?) -> HTTPHeaders? {
        guard let accepted else { return nil }
        var headers = HTTPHeaders()
        headers.add(name: "Sec-WebSocket-Protocol", value: TunnelWebSocket.subprotocol)
        if case .new(let pairing) = accepted {
            headers.add(name: TunnelWebSocket.routingIDHeader, value: pairing.routingID.hex)
        }
        return headers
    }
}
