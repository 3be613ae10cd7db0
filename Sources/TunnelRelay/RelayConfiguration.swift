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
    /// Most messages held for a `/cable/new` side whose peer has not joined yet.
    public var maxQueuedMessages: Int = 64
    /// Most pending (unpaired) tunnels; further `/cable/new` requests get 503.
    public var maxPendingTunnels: Int = 100_000
    /// Most open TCP connections; requests on connections beyond it get 503.
    public var maxConnections: Int = 250_000
    /// New connections allowed per second from one IP address (token bucket); 0 disables the
    /// limit (do that behind a proxy, where every connection comes from the proxy's address).
    public var connectionsPerSecondPerIP: Double = 50
    /// Bucket size of the per-IP rate limit (the burst allowed).
    public var connectionBurstPerIP: Int = 100
    /// Time from TCP accept to a completed WebSocket upgrade or HTTP response (slowloris guard).
    public var handshakeTimeout: Duration = .seconds(10)
    /// Read silence after which the relay pings; a second silent interval closes the connection.
    public var pingInterval: Duration = .seconds(20)
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
    /// Serve `/metrics` in Prometheus text format.
    public var metricsEnabled: Bool = true

    /// Paths of a PEM certificate chain and its private key.
    public struct TLSFiles: Sendable, Equatable {
        public var certificateChain: String
        public var privateKey: String
        public init(certificateChain: String, privateKey: String) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
        }
    }

    public init() {}
}
