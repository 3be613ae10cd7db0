import ArgumentParser
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import TunnelRelay

/// `tunnel-relay`: the caBLE v2 tunnel relay server.
@main
struct TunnelRelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tunnel-relay",
        abstract:
            "Relay for FIDO hybrid (caBLE v2) tunnels: pairs /cable/new with /cable/connect and forwards their messages.",
        discussion: """
            Authenticators open /cable/new/<tunnel ID> and get a routing ID in X-caBLE-Routing-ID; clients \
            open /cable/connect/<routing ID>/<tunnel ID>; the relay forwards binary WebSocket messages \
            between them without reading them. /cable/contact answers 501. Also serves /healthz ("ok", no \
            counts) and, with --metrics-port, /metrics (Prometheus) on a loopback listener of its own, never \
            on the tunnel port. SIGTERM or SIGINT: /healthz answers 503 "draining" for --drain-delay \
            while everything else still works (a load balancer stops sending new tunnels), then stop \
            accepting, let tunnels finish up to --shutdown-grace, then close them with code 1001.

            Every option can also be set by an environment variable TUNNEL_RELAY_<OPTION> \
            (upper case, dashes as underscores, e.g. TUNNEL_RELAY_PORT=443); a flag wins over the variable. \
            Once listening, prints "listening on <host>:<port>" (the real port when --port is 0).

            Limits. At start the soft descriptor limit (RLIMIT_NOFILE) is raised to the hard one, and the \
            connection and pending-tunnel caps default to values derived from it: connections = limit - \
            max(32, 2 %), per IP address 1/16 of that (8-4096); pending tunnels = connections / 2, per IP \
            1/64 of that (4-1024). An IPv6 client counts by its /64 prefix. Behind HAProxy, --proxy-protocol \
            (with send-proxy-v2) makes the per-IP limits count the real client instead of the proxy; \
            --proxy-protocol-from names the proxies, and connections from anyone else are closed. \
            Connections beyond a cap or the rate limit are answered at once and closed. \
            The relay stops reading from a socket while its peer's socket is full, while its own socket is \
            full (then it answers no pings), and while its pre-pairing queue is full; a client that never \
            reads is closed after two silent ping intervals, one that sends more than --max-pings pings \
            per interval at once (4004).

            Messages in flight (bytes received but not yet a whole frame, fragments being reassembled, \
            messages forwarded but not yet written) cost nothing up to --inflight-allowance per connection; \
            beyond it they are charged to --max-inflight-total across all connections, and a connection \
            whose next bytes do not fit is closed with 1013 (try again later) and no longer read.

            Worst-case memory (RSS), in bytes, with C = --max-connections, H = --outbound-high-water, \
            Q = --max-queued-total, B = --max-queued-bytes, F = --max-inflight-total, A = --inflight-allowance:
              RSS <= 40 MiB + Q + 2 * F + C * (16 KiB + H + B + 256 KiB + 2 * A)
            (16 KiB of fixed state per connection, H bytes waiting to be written plus a pre-pairing queue \
            of up to B written at pairing, one 256 KiB read cycle read before a pause or a close takes \
            effect, and the messages in flight; a byte in flight can be held twice for a moment: buffers \
            grow by doubling and unmasking copies). No term grows \
            with --max-message-size: partly sent maximum-size messages on every connection fill F and \
            then get 1013.
            """
    )

    @Option(help: "Address to listen on. [env: TUNNEL_RELAY_HOST]")
    var host: String = env("HOST") ?? "127.0.0.1"

    @Option(help: "Port to listen on; 0 lets the OS choose. [env: TUNNEL_RELAY_PORT]")
    var port: Int = env("PORT").flatMap { Int($0) } ?? 8080

    @Option(help: "PEM certificate chain for TLS (needs --tls-key). [env: TUNNEL_RELAY_TLS_CERT]")
    var tlsCert: String?

    @Option(help: "PEM private key for TLS (needs --tls-cert). [env: TUNNEL_RELAY_TLS_KEY]")
    var tlsKey: String?

    @Option(
        help:
            "First routing-ID byte (0-255) naming this instance for a load balancer. [env: TUNNEL_RELAY_ROUTING_PREFIX]"
    )
    var routingPrefix: UInt8 = env("ROUTING_PREFIX").flatMap { UInt8($0) } ?? 0

    @Option(help: "Seconds a /cable/new tunnel waits for /cable/connect. [env: TUNNEL_RELAY_PENDING_TTL]")
    var pendingTTL: Double = env("PENDING_TTL").flatMap { Double($0) } ?? 60

    @Option(help: "Maximum seconds a paired tunnel lives. [env: TUNNEL_RELAY_TUNNEL_LIFETIME]")
    var tunnelLifetime: Double = env("TUNNEL_LIFETIME").flatMap { Double($0) } ?? 300

    @Option(help: "Largest message in bytes. [env: TUNNEL_RELAY_MAX_MESSAGE_SIZE]")
    var maxMessageSize: Int = env("MAX_MESSAGE_SIZE").flatMap { Int($0) } ?? (1 << 20)

    @Option(help: "Most messages per direction per tunnel. [env: TUNNEL_RELAY_MAX_MESSAGES]")
    var maxMessages: Int = env("MAX_MESSAGES").flatMap { Int($0) } ?? 4096

    @Option(help: "Most bytes per direction per tunnel. [env: TUNNEL_RELAY_MAX_BYTES]")
    var maxBytes: Int = env("MAX_BYTES").flatMap { Int($0) } ?? (64 << 20)

    @Option(
        help:
            "Messages queued for a side whose peer has not joined before reading pauses. [env: TUNNEL_RELAY_MAX_QUEUED]"
    )
    var maxQueued: Int = env("MAX_QUEUED").flatMap { Int($0) } ?? 64

    @Option(
        help:
            "Bytes queued for one side whose peer has not joined before reading pauses. [env: TUNNEL_RELAY_MAX_QUEUED_BYTES]"
    )
    var maxQueuedBytes: Int = env("MAX_QUEUED_BYTES").flatMap { Int($0) } ?? (64 << 10)

    @Option(
        help:
            "Bytes queued before pairing across all tunnels; a message beyond closes its side (4004). [env: TUNNEL_RELAY_MAX_QUEUED_TOTAL]"
    )
    var maxQueuedTotal: Int = env("MAX_QUEUED_TOTAL").flatMap { Int($0) } ?? (16 << 20)

    @Option(
        help:
            "Bytes of messages in flight on one connection that are not charged to --max-inflight-total. [env: TUNNEL_RELAY_INFLIGHT_ALLOWANCE]"
    )
    var inflightAllowance: Int = env("INFLIGHT_ALLOWANCE").flatMap { Int($0) } ?? (64 << 10)

    @Option(
        help:
            "Bytes of messages in flight beyond the allowances, across all connections; a connection beyond closes (1013). [env: TUNNEL_RELAY_MAX_INFLIGHT_TOTAL]"
    )
    var maxInflightTotal: Int = env("MAX_INFLIGHT_TOTAL").flatMap { Int($0) } ?? (32 << 20)

    @Option(
        help: "Most pending tunnels (503 beyond); default from the descriptor limit. [env: TUNNEL_RELAY_MAX_PENDING]")
    var maxPending: Int?

    @Option(
        help:
            "Most pending tunnels per IP address (429 beyond; an IPv6 /64 counts as one), 0 = no cap (behind a proxy: --proxy-protocol); default from the descriptor limit. [env: TUNNEL_RELAY_MAX_PENDING_PER_IP]"
    )
    var maxPendingPerIP: Int?

    @Option(
        help:
            "Most open connections (503 beyond); default from the descriptor limit. [env: TUNNEL_RELAY_MAX_CONNECTIONS]"
    )
    var maxConnections: Int?

    @Option(
        help:
            "Most open connections per IP address (429 beyond; an IPv6 /64 counts as one), 0 = no cap (behind a proxy: --proxy-protocol); default from the descriptor limit. [env: TUNNEL_RELAY_MAX_CONNECTIONS_PER_IP]"
    )
    var maxConnectionsPerIP: Int?

    @Option(
        help:
            "Bytes waiting to be written to a socket above which it counts as full. [env: TUNNEL_RELAY_OUTBOUND_HIGH_WATER]"
    )
    var outboundHighWater: Int = env("OUTBOUND_HIGH_WATER").flatMap { Int($0) } ?? (64 << 10)

    @Option(
        help:
            "New connections per second per client IP, 0 = unlimited (behind a proxy: --proxy-protocol). [env: TUNNEL_RELAY_RATE_PER_IP]"
    )
    var ratePerIP: Double = env("RATE_PER_IP").flatMap { Double($0) } ?? 50

    @Option(help: "Burst size of the per-IP rate limit. [env: TUNNEL_RELAY_BURST_PER_IP]")
    var burstPerIP: Int = env("BURST_PER_IP").flatMap { Int($0) } ?? 100

    @Option(help: "Seconds from accept to completed upgrade (slowloris guard). [env: TUNNEL_RELAY_HANDSHAKE_TIMEOUT]")
    var handshakeTimeout: Double = env("HANDSHAKE_TIMEOUT").flatMap { Double($0) } ?? 10

    @Option(help: "Seconds of silence before a ping; twice that closes. [env: TUNNEL_RELAY_PING_INTERVAL]")
    var pingInterval: Double = env("PING_INTERVAL").flatMap { Double($0) } ?? 20

    @Option(
        help:
            "Seconds /healthz fails (503 draining) after SIGTERM before the listener closes; behind HAProxy, more than inter x fall. [env: TUNNEL_RELAY_DRAIN_DELAY]"
    )
    var drainDelay: Double = env("DRAIN_DELAY").flatMap { Double($0) } ?? 0

    @Option(
        help: "Most pings a client may send per ping interval; one more closes it (4004). [env: TUNNEL_RELAY_MAX_PINGS]"
    )
    var maxPings: Int = env("MAX_PINGS").flatMap { Int($0) } ?? 32

    @Option(help: "Seconds live tunnels may continue after SIGTERM. [env: TUNNEL_RELAY_SHUTDOWN_GRACE]")
    var shutdownGrace: Double = env("SHUTDOWN_GRACE").flatMap { Double($0) } ?? 30

    @Option(help: "Event-loop threads; 0 = one per CPU core. [env: TUNNEL_RELAY_EVENT_LOOPS]")
    var eventLoops: Int = env("EVENT_LOOPS").flatMap { Int($0) } ?? 0

    @Flag(help: "Do not serve /metrics, even with --metrics-port. [env: TUNNEL_RELAY_NO_METRICS=1]")
    var noMetrics: Bool = env("NO_METRICS") == "1"

    @Option(
        help:
            "Serve /metrics on this port of --metrics-host (0: the OS picks); without it /metrics is not served. Never on the tunnel port. [env: TUNNEL_RELAY_METRICS_PORT]"
    )
    var metricsPort: Int?

    @Option(help: "Address of the --metrics-port listener. [env: TUNNEL_RELAY_METRICS_HOST]")
    var metricsHost: String = env("METRICS_HOST") ?? "127.0.0.1"

    @Flag(
        help:
            "Every connection starts with a PROXY protocol v2 header (HAProxy send-proxy-v2); per-IP limits count the client it names. Connections without one are closed. Needs --proxy-protocol-from. [env: TUNNEL_RELAY_PROXY_PROTOCOL=1]"
    )
    var proxyProtocol: Bool = env("PROXY_PROTOCOL") == "1"

    @Option(
        name: .customLong("proxy-protocol-from"),
        help: ArgumentHelp(
            "The proxies allowed to send PROXY headers, as IPv4/IPv6 CIDR blocks (a bare address is one host), e.g. 127.0.0.1/32 or 10.0.0.0/8,fd00::/8; connections from any other peer are closed unread. Keep the port unreachable except from them. [env: TUNNEL_RELAY_PROXY_PROTOCOL_FROM]",
            valueName: "CIDR[,CIDR...]")
    )
    var proxyProtocolFrom: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical. [env: TUNNEL_RELAY_LOG_LEVEL]")
    var logLevel: String = env("LOG_LEVEL") ?? "info"

    /// `--tls-cert`, else `TUNNEL_RELAY_TLS_CERT`.
    private var tlsCertificatePath: String? { tlsCert ?? env("TLS_CERT") }
    /// `--tls-key`, else `TUNNEL_RELAY_TLS_KEY`.
    private var tlsKeyPath: String? { tlsKey ?? env("TLS_KEY") }
    /// `--max-pending`, else `TUNNEL_RELAY_MAX_PENDING`.
    private var maxPendingValue: Int? { maxPending ?? env("MAX_PENDING").flatMap { Int($0) } }
    /// `--max-pending-per-ip`, else `TUNNEL_RELAY_MAX_PENDING_PER_IP`.
    private var maxPendingPerIPValue: Int? { maxPendingPerIP ?? env("MAX_PENDING_PER_IP").flatMap { Int($0) } }
    /// `--max-connections`, else `TUNNEL_RELAY_MAX_CONNECTIONS`.
    private var maxConnectionsValue: Int? { maxConnections ?? env("MAX_CONNECTIONS").flatMap { Int($0) } }
    /// `--max-connections-per-ip`, else `TUNNEL_RELAY_MAX_CONNECTIONS_PER_IP`.
    private var maxConnectionsPerIPValue: Int? {
        maxConnectionsPerIP ?? env("MAX_CONNECTIONS_PER_IP").flatMap { Int($0) }
    }
    /// `--metrics-port`, else `TUNNEL_RELAY_METRICS_PORT`.
    private var metricsPortValue: Int? { metricsPort ?? env("METRICS_PORT").flatMap { Int($0) } }
    /// `--proxy-protocol-from`, else `TUNNEL_RELAY_PROXY_PROTOCOL_FROM`.
    private var proxyProtocolFromValue: String? { proxyProtocolFrom ?? env("PROXY_PROTOCOL_FROM") }

    func validate() throws {
        guard (tlsCertificatePath == nil) == (tlsKeyPath == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together")
        }
        guard (0...65_535).contains(port), (0...65_535).contains(metricsPortValue ?? 0) else {
            throw ValidationError("--port and --metrics-port must be 0-65535")
        }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        for (name, value) in [
            ("--pending-ttl", pendingTTL), ("--tunnel-lifetime", tunnelLifetime),
            ("--handshake-timeout", handshakeTimeout), ("--ping-interval", pingInterval),
        ]
        where !(value > 0) {
            throw ValidationError("\(name) must be positive")
        }
        guard drainDelay >= 0, shutdownGrace >= 0 else {
            throw ValidationError("--drain-delay and --shutdown-grace must be 0 or more")
        }
        guard eventLoops >= 0 else { throw ValidationError("--event-loops must be 0 or more") }
        guard maxMessageSize > 0, maxMessages > 0, maxBytes > 0, maxPendingValue ?? 1 > 0, maxConnectionsValue ?? 1 > 0,
            maxQueued > 0, maxQueuedBytes > 0, maxQueuedTotal > 0, outboundHighWater > 0, maxPings > 0,
            maxInflightTotal > 0
        else {
            throw ValidationError("limits must be positive")
        }
        guard inflightAllowance >= 0 else { throw ValidationError("--inflight-allowance must be 0 or more") }
        guard maxPendingPerIPValue ?? 0 >= 0, maxConnectionsPerIPValue ?? 0 >= 0 else {
            throw ValidationError("per-IP limits must be 0 (no cap) or positive")
        }
        _ = try trustedProxies()
    }

    /// The relay configuration these flags describe.
    var relayConfiguration: RelayConfiguration {
        var configuration = RelayConfiguration()
        configuration.host = host
        configuration.port = port
        if let certificateChain = tlsCertificatePath, let privateKey = tlsKeyPath {
            configuration.tls = .init(certificateChain: certificateChain, privateKey: privateKey)
        }
        configuration.routingIDPrefix = routingPrefix
        configuration.pendingTunnelTTL = .seconds(pendingTTL)
        configuration.pairedTunnelLifetime = .seconds(tunnelLifetime)
        configuration.maxMessageSize = maxMessageSize
        configuration.maxMessagesPerDirection = maxMessages
        configuration.maxBytesPerDirection = maxBytes
        configuration.maxQueuedMessages = maxQueued
        configuration.maxQueuedBytesPerTunnel = maxQueuedBytes
        configuration.maxQueuedBytesTotal = maxQueuedTotal
        configuration.inFlightAllowancePerConnection = inflightAllowance
        configuration.maxInFlightBytesTotal = maxInflightTotal
        if let maxPendingValue { configuration.maxPendingTunnels = maxPendingValue }
        if let maxPendingPerIPValue { configuration.maxPendingTunnelsPerIP = maxPendingPerIPValue }
        if let maxConnectionsValue { configuration.maxConnections = maxConnectionsValue }
        if let maxConnectionsPerIPValue { configuration.maxConnectionsPerIP = maxConnectionsPerIPValue }
        configuration.outboundHighWaterMark = outboundHighWater
        configuration.maxPingsPerInterval = maxPings
        configuration.connectionsPerSecondPerIP = ratePerIP
        configuration.connectionBurstPerIP = burstPerIP
        configuration.handshakeTimeout = .seconds(handshakeTimeout)
        configuration.pingInterval = .seconds(pingInterval)
        configuration.shutdownGracePeriod = .seconds(shutdownGrace)
        configuration.drainDelay = .seconds(drainDelay)
        configuration.metricsEnabled = !noMetrics
        configuration.metricsPort = metricsPortValue
        configuration.metricsHost = metricsHost
        configuration.proxyProtocol = proxyProtocol
        // validate() has parsed it already.
        configuration.trustedProxies = (try? trustedProxies()) ?? TrustedProxySet()
        return configuration
    }

    /// The proxies of `--proxy-protocol-from`. `--proxy-protocol` without them is refused: it
    /// would either trust nobody (every connection closed) or, as it once did, anybody (any
    /// peer could name any client address to the per-IP limits).
    private func trustedProxies() throws -> TrustedProxySet {
        guard let list = proxyProtocolFromValue else {
            guard !proxyProtocol else {
                throw ValidationError(
                    "--proxy-protocol needs --proxy-protocol-from CIDR[,CIDR...]: the proxies whose PROXY headers are believed (e.g. 127.0.0.1/32)"
                )
            }
            return TrustedProxySet()
        }
        guard proxyProtocol else { throw ValidationError("--proxy-protocol-from is only used with --proxy-protocol") }
        do {
            return try TrustedProxySet(parsing: list)
        } catch {
            throw ValidationError("--proxy-protocol-from: \(error)")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        if eventLoops > 0 {
            // Sizes NIO's singleton group; must happen before anything uses it.
            NIOSingletons.groupLoopCountSuggestion = eventLoops
        }
        let logger = Logger(label: "tunnel.relay")
        // Before relayConfiguration: its default caps are derived from the raised limit.
        let descriptors = RelayDefaultLimits.raiseDescriptorLimit()
        let configuration = relayConfiguration
        logger.info(
            "limits",
            metadata: [
                "descriptors": "\(descriptors)", "connections": "\(configuration.maxConnections)",
                "connections.per_ip": "\(configuration.maxConnectionsPerIP)",
                "pending": "\(configuration.maxPendingTunnels)",
                "pending.per_ip": "\(configuration.maxPendingTunnelsPerIP)",
            ]
        )
        let relay = try await buildRelay(configuration: configuration, logger: logger)
        var ready = ["listening on \(host):\(relay.port)"]
        if let metricsPort = relay.metricsPort { ready.append("metrics on \(metricsHost):\(metricsPort)") }
        // The group traps SIGTERM before it starts a service: the lines come after that.
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(service: relay),
                    .init(service: ReadinessLines(lines: ready), successTerminationBehavior: .ignore),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        try await group.run()
    }
}

/// Prints what a harness waits for (`listening on HOST:PORT`, then `metrics on …`) once it may
/// act on it: started by the service group, so after SIGTERM is trapped. A SIGTERM sent as soon as
/// the line appears drains the relay instead of killing it.
private struct ReadinessLines: Service {
    let lines: [String]

    func run() async {
        // Unbuffered, so a harness reading a pipe sees it at once.
        FileHandle.standardOutput.write(Data(lines.map { $0 + "\n" }.joined().utf8))
    }
}

/// `TUNNEL_RELAY_<name>` from the environment.
private func env(_ name: String) -> String? {
    ProcessInfo.processInfo.environment["TUNNEL_RELAY_" + name]
}
