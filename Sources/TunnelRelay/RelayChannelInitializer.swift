import HybridCore
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import NIOWebSocket

/// Builds the pipeline of each accepted connection:
/// `[PROXY v2] → [TLS] → HTTP codec → RelayRequestGate → HTTPServerUpgradeHandler`, which after a
/// WebSocket upgrade (``RelayWebSocketUpgrader``) becomes `[TLS] → RelayTunnelHandler`. With
/// ``RelayConfiguration/proxyProtocol`` the per-address limits wait for the PROXY header
/// (``RelayProxyProtocolHandler``); otherwise they apply at accept to the socket's peer.
struct RelayChannelInitializer: Sendable {
    let relay: RelayContext
    let rateLimiter: ConnectionRateLimiter
    let tlsContext: NIOSSLContext?
    let shuttingDown: @Sendable () -> Bool
    let health: RelayHealth

    func initialize(_ channel: any Channel) throws {
        let configuration = relay.configuration
        let handshake = RelayHandshake()
        if relay.tracker.track(channel) > configuration.maxConnections {
            return refuse(channel, .connectionLimit)
        }
        // The handshake timeout also bounds the wait for a PROXY header.
        Self.startHandshakeTimer(channel, handshake: handshake, configuration: configuration)
        guard configuration.proxyProtocol else {
            try admit(channel, client: channel.remoteAddress.flatMap(RelayClientAddress.init), handshake: handshake)
            return
        }
        let metrics = relay.metrics
        let boundHandshake = NIOLoopBound(handshake, eventLoop: channel.eventLoop)
        try channel.pipeline.syncOperations.addHandler(
            RelayProxyProtocolHandler(
                admit: { [self] context, client in
                    (try? admit(context.channel, client: client, handshake: boundHandshake.value)) ?? false
                },
                rejected: {
                    metrics.rejected(.missingProxyHeader)
                    boundHandshake.value.timeout?.cancel()
                }
            )
        )
    }

    /// Applies the per-address limits to `client`, then builds the rest of the pipeline.
    /// Returns `false` if it refused the connection.
    @discardableResult
    private func admit(_ channel: any Channel, client: RelayClientAddress?, handshake: RelayHandshake) throws -> Bool {
        handshake.client = client
        if let rejection = refusal(channel, client: client) {
            handshake.timeout?.cancel()
            handshake.timeout = nil
            refuse(channel, rejection)
            return false
        }
        var conditions = RelayRequestRouter.ConnectionConditions()
        conditions.shuttingDown = shuttingDown()
        conditions.draining = health.isDraining
        conditions.metricsEnabled = relay.configuration.metricsEnabled && relay.configuration.metricsPort == nil
        if let tlsContext { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tlsContext)) }
        try Self.addHTTPHandlers(to: channel, handshake: handshake, relay: relay, conditions: conditions)
        return true
    }

    /// Closes `channel` unless it is upgraded or answered within the handshake timeout (the gate
    /// cancels the timer when it is removed).
    static func startHandshakeTimer(
        _ channel: any Channel, handshake: RelayHandshake, configuration: RelayConfiguration
    ) {
        handshake.timeout = channel.eventLoop.scheduleTask(in: TimeAmount(configuration.handshakeTimeout)) {
            channel.pipeline.fireUserInboundEventTriggered(RelayHandshakeTimedOut())
        }
    }

    /// The HTTP part of the pipeline: codec, ``RelayRequestGate`` and the WebSocket upgrade (which
    /// installs the ``RelayTunnelHandler``). The metrics listener uses it too, with conditions
    /// that route `/metrics` only.
    static func addHTTPHandlers(
        to channel: any Channel, handshake: RelayHandshake, relay: RelayContext,
        conditions: RelayRequestRouter.ConnectionConditions
    ) throws {
        let configuration = relay.configuration
        let boundHandshake = NIOLoopBound(handshake, eventLoop: channel.eventLoop)
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
        try channel.pipeline.syncOperations.addHandlers([encoder, decoder, gate, upgradeHandler])
    }

    /// Why a connection must be refused once its client is known, if it must: the per-address
    /// connection cap, then the per-address rate limit (a capped connection takes no token).
    private func refusal(_ channel: any Channel, client: RelayClientAddress?) -> RelayRejection? {
        guard let client else { return nil }
        let configuration = relay.configuration
        let open = relay.tracker.count(channel, from: client)
        if configuration.maxConnectionsPerIP > 0, open > configuration.maxConnectionsPerIP {
            return .addressConnectionLimit
        }
        if !rateLimiter.allow(client, now: .now()) { return .rateLimited }
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
