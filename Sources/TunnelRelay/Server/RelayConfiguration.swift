import HybridCore

/// Everything a relay instance can be told, each with a default suitable for production.
///
/// Durations are Swift `Duration`s; sizes are bytes; a limit of 0 means "unlimited" only where
/// the property says so.
public struct RelayConfiguration: Sendable {
    /// Address to listen on (an IP address or host name).
    public var host: String = "127.0.0.1"
    /// Port to listen on; 0 lets the OS choose (read it back from ``RelayServer/port``).
    public var port: Int = 8080
    /// PEM certificate chain and private key for TLS; both `nil` for plain HTTP behind a proxy.
    public var tls: TLSFiles?

    /// First byte of every routing ID this instance hands out. A load balancer routes
    /// `/cable/connect/<routing ID>/…` to the instance whose prefix matches (see deploy/haproxy.cfg).
    public var routingIDPrefix: UInt8 = 0

    /// How long a `/cable/new` tunnel waits for its `/cable/connect` peer.
    public var pendingTunnelTTL: Duration = .seconds(60)
    /// Longest life of a paired tunnel; both sides are closed with ``RelayCloseCode/lifetimeExceeded``.
    public var pairedTunnelLifetime: Duration = .seconds(300)
    /// Largest WebSocket message (protocol.md §5.4: Chromium accepts up to 1 MiB).
    public var maxMessageSize: Int = TunnelWebSocket.maxMessageSize
    /// Most messages one side may send through a tunnel.
    public var maxMessagesPerDirection: Int = 4096
    /// Most payload bytes one side may send through a tunnel.
    public var maxBytesPerDirection: Int = 64 << 20
    /// Most messages held for a `/cable/new` side whose peer has not joined yet. A full queue
    /// pauses reading from that side until the peer joins.
    public var maxQueuedMessages: Int = 64
    /// Most payload bytes held for one `/cable/new` side whose peer has not joined yet; a full
    /// queue pauses reading (real phones send nothing before the client's first message, §5.4).
    public var maxQueuedBytesPerTunnel: Int = 64 << 10
    /// Most payload bytes held before pairing across all tunnels; a side whose message does not
    /// fit is closed with ``RelayCloseCode/limitExceeded``.
    public var maxQueuedBytesTotal: Int = 16 << 20
    /// Bytes of messages in flight on one connection that cost nothing against
    /// ``maxInFlightBytesTotal``: received but not yet a whole message, being reassembled from
    /// fragments, or forwarded but not yet written to the peer's socket.
    public var inFlightAllowancePerConnection: Int = 64 << 10
    /// Most bytes of messages in flight beyond the per-connection allowances, across all
    /// connections, so that partly sent maximum-size messages cannot add up to C × 3 ×
    /// ``maxMessageSize``. A connection whose next bytes do not fit is closed with
    /// ``RelayCloseCode/tryAgainLater`` (1013) and no longer read.
    public var maxInFlightBytesTotal: Int = 32 << 20
    /// Most pending (unpaired) tunnels; further `/cable/new` requests get 503. Default: derived
    /// from the descriptor limit (``RelayDefaultLimits``).
    public var maxPendingTunnels: Int = RelayDefaultLimits.current.maxPendingTunnels
    /// Most pending tunnels opened from one client address (an IPv4 address or an IPv6 /64; 429
    /// beyond), so that one client cannot take ``maxPendingTunnels`` from everyone; 0 = no cap.
    public var maxPendingTunnelsPerIP: Int = RelayDefaultLimits.current.maxPendingTunnelsPerIP
    /// Most open TCP connections; connections beyond it are answered 503 and closed at once.
    /// Default: the descriptor limit minus a reserve (``RelayDefaultLimits``).
    public var maxConnections: Int = RelayDefaultLimits.current.maxConnections
    /// Most open connections from one client address (an IPv4 address or an IPv6 /64); beyond
    /// it, 429 and closed at once. 0 = no cap.
    public var maxConnectionsPerIP: Int = RelayDefaultLimits.current.maxConnectionsPerIP
    /// Bytes waiting to be written to one connection above which it counts as not writable: the
    /// relay then stops reading from it and from its peer, and answers no control frames.
    public var outboundHighWaterMark: Int = 64 << 10
    /// New connections allowed per second from one IP address, or IPv6 /64 (token bucket); 0
    /// disables the limit (behind a proxy, turn on ``proxyProtocol`` instead, or every connection
    /// counts as the proxy's).
    public var connectionsPerSecondPerIP: Double = 50
    /// Bucket size of the per-IP rate limit (the burst allowed).
    public var connectionBurstPerIP: Int = 100
    /// Time from TCP accept to a completed WebSocket upgrade or HTTP response (slowloris guard).
    public var handshakeTimeout: Duration = .seconds(10)
    /// Read silence after which the relay pings (one to two intervals: each connection is ticked
    /// once an interval, and the upgrade request counts as heard); a second silent interval closes
    /// the connection.
    public var pingInterval: Duration = .seconds(20)
    /// Most pings a client may send per ``pingInterval``; one more closes it with
    /// ``RelayCloseCode/limitExceeded`` and stops reading from it (a ping flood costs the relay a
    /// decode and a pong each, and the kernel buffers megabytes of pongs before a write blocks).
    public var maxPingsPerInterval: Int = 32
    /// How long the relay waits for the other end's close frame before dropping TCP.
    public var closeTimeout: Duration = .seconds(2)
    /// On graceful shutdown, how long `/healthz` answers 503 `draining` while the instance still
    /// serves everything, before it stops accepting. Behind a load balancer, set it above the
    /// balancer's time to mark a failing instance down (HAProxy: about `inter` × `fall`), so that no
    /// `/cable/new` reaches a closed listener; 0 (standalone) stops accepting at once.
    public var drainDelay: Duration = .zero
    /// On graceful shutdown, how long live tunnels may continue before they are closed.
    public var shutdownGracePeriod: Duration = .seconds(30)
    /// Listen backlog.
    public var backlog: Int32 = 4096
    /// Serve `/metrics` in Prometheus text format on the ``metricsPort`` listener (`false` turns
    /// that listener off too).
    public var metricsEnabled: Bool = true
    /// Serve `/metrics` on a listener of its own at ``metricsHost``:`metricsPort` (0: the OS
    /// picks, see ``RelayServer/metricsPort``). `nil` (the default): `/metrics` is not served.
    /// It is never served on the tunnel listener: its counters (pending tunnels, rejects by
    /// reason) tell anyone who can reach the public port how busy the relay is and how its limits
    /// fare. There is no default metrics port because several instances often share a host (a
    /// fleet behind HAProxy): any fixed port would collide, so the operator names one per instance.
    public var metricsPort: Int?
    /// Address of the metrics listener: loopback unless an operator opens it wider.
    public var metricsHost: String = "127.0.0.1"
    /// Most connections open at once on the metrics listener; one more is closed at accept. The
    /// metrics listener's descriptors come out of the reserve that ``maxConnections`` leaves free
    /// (``RelayDefaultLimits/reserve``, at least 32), so idle scrapers cannot take the tunnel
    /// port's connections (before this cap, 260 idle connections under a 256-descriptor limit
    /// took every descriptor and the tunnel port stopped answering).
    public var maxMetricsConnections: Int = RelayDefaultLimits.metricsConnections
    /// How long a metrics connection may stay open without a complete request; then it is closed.
    /// A scrape sends its request at once, and the answer closes the connection.
    public var metricsIdleTimeout: Duration = .seconds(5)
    /// Every connection starts with a PROXY protocol v2 header (HAProxy `send-proxy-v2`) naming
    /// the client, and the per-address limits count that client instead of the proxy. A
    /// connection without a valid header is closed, and so is every connection whose peer is not
    /// in `trustedProxies` (with the default empty set: every connection). Turn on only behind a
    /// proxy that sends it, and keep the instance's port unreachable except from the proxies.
    public var proxyProtocol: Bool = false
    /// With ``proxyProtocol``, the peers allowed to connect and name a client in a PROXY header
    /// (`--proxy-protocol-from`). A header is only a claim by whoever opened the connection: from
    /// anyone else it could name any address, to take other clients' shares of the per-address
    /// limits or to exhaust a victim address's share. Connections from other peers are closed
    /// before anything is read from them. Empty (the default): nobody is trusted.
    package var trustedProxies = TrustedProxySet()

    /// Paths of a PEM certificate chain and its private key.
    public struct TLSFiles: Sendable, Equatable {
        /// Path of the PEM certificate chain (leaf first).
        public var certificateChain: String
        /// Path of the PEM private key of the leaf certificate.
        public var privateKey: String
        /// The TLS files at these paths.
        public init(certificateChain: String, privateKey: String) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
        }
    }

    /// The default configuration (see each property's default).
    public init() {}
}
