import HybridCore
import Logging
import NIOCore
import NIOSSL

/// Builds the pipeline of each accepted connection:
/// `[PROXY v2] → [TLS] → RelayRequestGate`, which after a WebSocket upgrade becomes
/// `[TLS] → RelayTunnelHandler`. With
/// ``RelayConfiguration/proxyProtocol`` a peer outside `RelayConfiguration.trustedProxies` is
/// closed at accept, and for the others the per-address limits wait for the PROXY header
/// (``RelayProxyProtocolHandler``); otherwise they apply at accept to the socket's peer.
struct RelayChannelInitializer: Sendable {
    let relay: RelayContext
    let rateLimiter: ConnectionRateLimiter
    let tlsContext: NIOSSLContext?
    let shuttingDown: @Sendable () -> Bool
    let health: RelayHealth

    func initialize(_ channel: any Channel) throws {
        let configuration = relay.configuration
        try Self.setOptions(of: channel, configuration: configuration)
        let handshake = RelayHandshake()
        if relay.tracker.track(channel) > configuration.maxConnections {
            return refuse(channel, .connectionLimit)
        }
        if configuration.proxyProtocol, !Self.isTrustedProxy(channel.remoteAddress, configuration: configuration) {
            // Before reading anything: a PROXY header from this peer must not name a client.
            relay.metrics.rejected(.untrustedProxy)
            channel.close(promise: nil)
            return
        }
        // The handshake timeout also bounds the wait for a PROXY header.
        Self.startHandshakeTimer(channel, handshake: handshake, relay: relay)
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

    /// Whether `peer` may send a PROXY header: one of `RelayConfiguration.trustedProxies`.
    static func isTrustedProxy(_ peer: SocketAddress?, configuration: RelayConfiguration) -> Bool {
        guard let peer else { return false }
        return configuration.trustedProxies.contains(peer)
    }

    /// The accepted socket's options, set directly (ServerBootstrap's child options would apply them
    /// through a chain of futures per connection). NIO reads up to 4 times per wake-up, as wanted.
    static func setOptions(of channel: any Channel, configuration: RelayConfiguration) throws {
        guard let options = channel.syncOptions else { throw ChannelError.operationUnsupported }
        // Each connection keeps its receive buffer between reads. NIO starts it at 2 KiB; an
        // upgrade request and small tunnel messages fit in 512 bytes, and it still grows (to
        // 64 KiB) for a connection that sends large messages. Saves ~3 KiB per idle tunnel.
        try options.setOption(
            .recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536))
        try options.setOption(
            .writeBufferWaterMark,
            value: .init(
                low: configuration.outboundHighWaterMark / 2, high: max(configuration.outboundHighWaterMark, 1)))
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
        if let tlsContext { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tlsContext)) }
        try Self.addRequestGate(to: channel, handshake: handshake, relay: relay, conditions: conditions)
        return true
    }

    /// Closes `channel` unless it is upgraded or answered within the handshake timeout (the gate
    /// cancels the timer when it is removed).
    /// (`limit`: the metrics listener's own idle timeout instead of the handshake timeout.)
    static func startHandshakeTimer(
        _ channel: any Channel, handshake: RelayHandshake, relay: RelayContext, limit: Duration? = nil
    ) {
        handshake.timeout = relay.timers.schedule(
            on: channel.eventLoop, in: TimeAmount(limit ?? relay.configuration.handshakeTimeout)
        ) {
            channel.pipeline.fireUserInboundEventTriggered(RelayHandshakeTimedOut())
        }
    }

    /// The request part of the pipeline: the one ``RelayRequestGate``, which answers or upgrades
    /// (and then installs the ``RelayTunnelHandler``). The metrics listener uses it too, with
    /// conditions that route `/metrics` only.
    static func addRequestGate(
        to channel: any Channel, handshake: RelayHandshake, relay: RelayContext,
        conditions: RelayRequestRouter.ConnectionConditions
    ) throws {
        try channel.pipeline.syncOperations.addHandler(
            RelayRequestGate(handshake: handshake, context: relay, conditions: conditions))
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
        let response = rejection.earlyResponse
        channel.writeAndFlush(response).whenComplete { _ in channel.close(promise: nil) }
    }
}
