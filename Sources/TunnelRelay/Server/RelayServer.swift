import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServiceLifecycle

/// A running relay instance: bound and accepting once ``buildRelay(configuration:random:logger:)``
/// returns. As a `Service`, ``run()`` serves until graceful shutdown (SIGTERM in the CLI) or
/// cancellation.
///
/// Graceful shutdown first fails `/healthz` (503 `draining`) for
/// ``RelayConfiguration/drainDelay`` while still serving, so a load balancer stops sending new
/// tunnels; then it stops accepting, closes pending tunnels (nobody can join them any more),
/// lets paired tunnels finish for up to ``RelayConfiguration/shutdownGracePeriod``, then closes
/// what is left with ``RelayCloseCode/goingAway``. Cancellation skips the delay and the grace.
public final class RelayServer: Service, Sendable {
    /// The bound address (with the real port when the configuration asked for port 0).
    public let localAddress: SocketAddress
    /// The metrics listener's address, when ``RelayConfiguration/metricsPort`` asked for one.
    public let metricsAddress: SocketAddress?
    private let serverChannel: any Channel
    private let metricsChannel: (any Channel)?
    private let relay: RelayContext
    private let shuttingDown: NIOLockedValueBox<Bool>
    private let health: RelayHealth

    /// The bound port.
    public var port: Int { localAddress.port ?? 0 }

    /// The metrics listener's port, if there is one.
    public var metricsPort: Int? { metricsAddress?.port }

    /// Current number of pending and paired tunnels.
    public var tunnelCounts: (pending: Int, paired: Int) { relay.registry.counts }

    /// Current number of open connections.
    public var connectionCount: Int { relay.tracker.count }

    /// The accepted connections now open (tests read their socket options).
    var openConnections: [any Channel] { relay.tracker.channels }

    /// Returns once no connection is open (at once if none is).
    func allConnectionsClosed() async throws {
        try await relay.tracker.drained(on: serverChannel.eventLoop).get()
    }

    /// Whether a timer wheel or ping sweeper of this relay ticks on any event loop (tests: an idle
    /// relay must not wake up at all).
    var isTicking: Bool { relay.timers.isTicking || relay.pingSweepers.isTicking }

    /// Runs one whole ping interval at once on every connection (tests, with a long interval).
    func tickPingSweepers() async throws {
        try await relay.pingSweepers.tickAll()
    }

    /// Bytes queued before pairing, across all tunnels (charged with their per-message overhead).
    var queuedBytes: Int { relay.accounting.queuedBytes }

    /// Bytes of messages in flight beyond the per-connection allowances, across all connections.
    var inFlightBytes: Int { relay.accounting.inFlightBytes }

    /// Connections whose reads are paused now.
    var pausedConnections: Int { relay.accounting.pausedConnections }

    /// The Prometheus exposition, as served on `/metrics`.
    public func metricsText() -> String { String(decoding: relay.metrics.exposition(), as: UTF8.self) }

    /// Whether graceful shutdown has begun (`/healthz` answers 503).
    public var isDraining: Bool { health.isDraining }

    init(
        serverChannel: any Channel, metricsChannel: (any Channel)?, relay: RelayContext,
        shuttingDown: NIOLockedValueBox<Bool>, health: RelayHealth
    ) throws {
        guard let address = serverChannel.localAddress else { throw ChannelError.inappropriateOperationForState }
        self.localAddress = address
        self.metricsAddress = metricsChannel?.localAddress
        self.serverChannel = serverChannel
        self.metricsChannel = metricsChannel
        self.relay = relay
        self.shuttingDown = shuttingDown
        self.health = health
    }

    /// Serves until graceful shutdown or cancellation, then drains as described above and returns.
    public func run() async throws {
        let serverChannel = self.serverChannel
        let health = self.health
        let drainDelay = TimeAmount(relay.configuration.drainDelay)
        let logger = relay.logger
        let delayedClose = NIOLockedValueBox<Scheduled<Void>?>(nil)
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await serverChannel.closeFuture.get()
            } onGracefulShutdown: {
                health.startDraining()
                logger.info("relay draining: /healthz fails", metadata: ["drain.delay": "\(drainDelay)"])
                if drainDelay <= .zero {
                    serverChannel.close(promise: nil)
                } else {
                    // Still serving until the balancer has seen the failing health check.
                    let close = serverChannel.eventLoop.scheduleTask(in: drainDelay) {
                        serverChannel.close(promise: nil)
                    }
                    delayedClose.withLockedValue { $0 = close }
                }
            }
        } onCancel: {
            delayedClose.withLockedValue { $0?.cancel() }
            serverChannel.close(promise: nil)
        }
        await drain()
    }

    /// After the listener closed: end pending tunnels, wait for paired ones up to the grace
    /// period (or not at all when cancelled), then close the rest.
    private func drain() async {
        shuttingDown.withLockedValue { $0 = true }
        let logger = relay.logger
        let pending = relay.registry.pendingTunnels
        logger.info(
            "relay stopped accepting",
            metadata: ["tunnels.pending": "\(pending.count)", "tunnels.paired": "\(relay.registry.counts.paired)"]
        )
        for pairing in pending {
            pairing.newChannel.pipeline.fireUserInboundEventTriggered(RelayCloseCommand(code: .goingAway))
        }
        let eventLoop = serverChannel.eventLoop
        let drained = relay.tracker.drained(on: eventLoop)
        let grace = Task.isCancelled ? .zero : TimeAmount(relay.configuration.shutdownGracePeriod)
        let deadline = eventLoop.scheduleTask(in: grace) {}
        let first = eventLoop.makePromise(of: Void.self)
        drained.cascade(to: first)
        deadline.futureResult.cascade(to: first)
        try? await first.futureResult.get()
        deadline.cancel()
        let remaining = relay.tracker.channels
        if !remaining.isEmpty {
            logger.info("closing remaining connections", metadata: ["connections": "\(remaining.count)"])
            for channel in remaining {
                channel.pipeline.fireUserInboundEventTriggered(RelayCloseCommand(code: .goingAway))
            }
            // Their close handshakes are bounded by closeTimeout; wait for them, then force.
            let forced = eventLoop.scheduleTask(in: TimeAmount(relay.configuration.closeTimeout) + .milliseconds(100)) {
                for channel in self.relay.tracker.channels { channel.close(promise: nil) }
            }
            try? await relay.tracker.drained(on: eventLoop).get()
            forced.cancel()
        }
        relay.pingSweepers.stop()
        relay.timers.stop()
        try? await metricsChannel?.close()
        logger.info("relay stopped")
    }
}

/// Binds a relay with `configuration` and returns it, listening. Call ``RelayServer/run()``
/// (directly, or in a `ServiceGroup`) to serve until shutdown.
///
/// - Parameters:
///   - configuration: the address, TLS files and limits of the relay.
///   - random: source of the two random routing-ID bytes (inject a seeded one in tests).
///   - logger: the relay's logger; it never receives payloads, full tunnel IDs or secrets.
public func buildRelay(
    configuration: RelayConfiguration,
    random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
    logger: Logger
) async throws -> RelayServer {
    try await buildRelay(configuration: configuration, random: random, logger: logger, observer: UnobservedRelay())
}

/// ``buildRelay(configuration:random:logger:)`` with an observer of the relay's internal events,
/// for tests that wait for them.
func buildRelay(
    configuration: RelayConfiguration,
    random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
    logger: Logger,
    observer: any RelayObserver
) async throws -> RelayServer {
    let metrics = RelayMetrics()
    let relay = RelayContext(
        configuration: configuration,
        registry: TunnelRegistry(
            routingIDPrefix: configuration.routingIDPrefix,
            maxPending: configuration.maxPendingTunnels,
            maxPendingPerAddress: configuration.maxPendingTunnelsPerIP,
            random: random,
            metrics: metrics
        ),
        metrics: metrics,
        tracker: ConnectionTracker(metrics: metrics),
        pingSweepers: PingSweepers(
            group: MultiThreadedEventLoopGroup.singleton,
            interval: TimeAmount(configuration.pingInterval)
        ),
        timers: RelayTimers(group: MultiThreadedEventLoopGroup.singleton),
        accounting: RelayAccounting(
            maxQueuedBytesTotal: configuration.maxQueuedBytesTotal,
            maxInFlightBytesTotal: configuration.maxInFlightBytesTotal,
            metrics: metrics,
            observer: observer
        ),
        logger: logger
    )
    let tlsContext = try configuration.tls.map(RelayTLS.context)
    let shuttingDown = NIOLockedValueBox(false)
    let health = RelayHealth()
    let initializer = RelayChannelInitializer(
        relay: relay,
        rateLimiter: ConnectionRateLimiter(
            rate: configuration.connectionsPerSecondPerIP,
            burst: configuration.connectionBurstPerIP
        ),
        tlsContext: tlsContext,
        shuttingDown: { shuttingDown.withLockedValue { $0 } },
        health: health
    )
    let serverChannel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.backlog, value: configuration.backlog)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        // No TCP_NODELAY here: ServerBootstrap sets it on the listening socket and accepted
        // sockets inherit it (no setsockopt per connection). `.socketOption(.tcp_nodelay)` was
        // SO_DEBUG (level SOL_SOCKET), which needs CAP_NET_ADMIN: without it every connection failed.
        // The accepted sockets' options are set by the initializer (RelayChannelInitializer
        // .setOptions): ServerBootstrap's child options cost a chain of futures per connection.
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture { try initializer.initialize(channel) }
        }
        .bind(host: configuration.host, port: configuration.port)
        .get()
    let metricsChannel: (any Channel)?
    do {
        metricsChannel = try await bindMetricsListener(relay: relay)
    } catch {
        try? await serverChannel.close()
        throw error
    }
    let server = try RelayServer(
        serverChannel: serverChannel, metricsChannel: metricsChannel, relay: relay, shuttingDown: shuttingDown,
        health: health
    )
    logger.info(
        "relay listening",
        metadata: [
            "address": "\(server.localAddress)", "routing.prefix": "\(configuration.routingIDPrefix)",
            "metrics.address": "\(server.metricsAddress.map { "\($0)" } ?? "not served")",
            "proxy_protocol":
                "\(configuration.proxyProtocol ? "from " + configuration.trustedProxies.description : "off")",
        ]
    )
    return server
}

/// The listener of ``RelayConfiguration/metricsPort`` (none without it): `/metrics` and nothing
/// else, through the same request gate as the tunnel listener; no TLS and no per-address limits,
/// but a budget of its own, apart from the tunnel port's: at most
/// ``RelayConfiguration/maxMetricsConnections`` open (one more is closed at accept) and each
/// closed after ``RelayConfiguration/metricsIdleTimeout`` without a request.
private func bindMetricsListener(relay: RelayContext) async throws -> (any Channel)? {
    let configuration = relay.configuration
    guard configuration.metricsEnabled, let port = configuration.metricsPort else { return nil }
    let slots = RelayMetricsSlots(limit: configuration.maxMetricsConnections)
    // One event loop for the listener and its connections: each child is set up on the loop that
    // accepted it, at once, so the cap goes by the order of arrival (with a group, a later
    // connection's set-up on an idle loop could take the slot of an earlier one still queued).
    let loop = MultiThreadedEventLoopGroup.singleton.next()
    return try await ServerBootstrap(group: loop)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                guard slots.take(until: channel.closeFuture) else {
                    channel.close(promise: nil)
                    return
                }
                var conditions = RelayRequestRouter.ConnectionConditions()
                conditions.metricsListener = true
                let handshake = RelayHandshake()
                RelayChannelInitializer.startHandshakeTimer(
                    channel, handshake: handshake, relay: relay, limit: configuration.metricsIdleTimeout)
                try RelayChannelInitializer.addRequestGate(
                    to: channel, handshake: handshake, relay: relay, conditions: conditions)
            }
        }
        .bind(host: configuration.metricsHost, port: port)
        .get()
}
