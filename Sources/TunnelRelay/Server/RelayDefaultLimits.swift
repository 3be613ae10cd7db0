#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Connection and pending-tunnel limits derived from the process's descriptor limit
/// (`RLIMIT_NOFILE`), so the relay refuses connections before the kernel refuses `accept`, and
/// no single address can take every descriptor: `/healthz` and other clients keep working while
/// one abuser sits at its caps.
public struct RelayDefaultLimits: Sendable, Equatable {
    /// Descriptors kept free for the listeners, the event loops, logging, refusals and the
    /// metrics listener's connections (at most ``metricsConnections``).
    public var reserve: Int
    /// The metrics listener's connection cap (``RelayConfiguration/maxMetricsConnections``): a
    /// few scrapers at once, well inside the smallest ``reserve`` (32).
    public static let metricsConnections = 8
    /// Most connections at once (``RelayConfiguration/maxConnections``): the descriptors left
    /// after ``reserve``.
    public var maxConnections: Int
    /// Most connections at once from one address (``RelayConfiguration/maxConnectionsPerIP``).
    public var maxConnectionsPerIP: Int
    /// Most unpaired tunnels waiting at once (``RelayConfiguration/maxPendingTunnels``).
    public var maxPendingTunnels: Int
    /// Most unpaired tunnels waiting at once from one address (``RelayConfiguration/maxPendingTunnelsPerIP``).
    public var maxPendingTunnelsPerIP: Int

    /// The limits for a process that may open `descriptorLimit` descriptors:
    /// - reserve: max(32, 2 % of the limit);
    /// - connections: the rest; per IP: 1/16 of that, clamped to 8…4096;
    /// - pending tunnels: half the connections (each one holds one); per IP: 1/64 of that,
    ///   clamped to 4…1024.
    public init(descriptorLimit: Int) {
        let limit = max(descriptorLimit, 64)
        reserve = max(32, limit / 50)
        maxConnections = limit - reserve
        maxConnectionsPerIP = min(max(maxConnections / 16, 8), 4096)
        maxPendingTunnels = max(maxConnections / 2, 1)
        maxPendingTunnelsPerIP = min(max(maxPendingTunnels / 64, 4), 1024)
    }

    /// The limits for this process's current soft `RLIMIT_NOFILE`.
    public static var current: RelayDefaultLimits { RelayDefaultLimits(descriptorLimit: descriptorLimit()) }

    /// The soft `RLIMIT_NOFILE` (1024 if it cannot be read; capped at 2^24).
    public static func descriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(resourceNoFile, &limit) == 0 else { return 1024 }
        return Int(min(limit.rlim_cur, 1 << 24))  // RLIM_INFINITY is the largest value
    }

    /// Raises the soft `RLIMIT_NOFILE` to the hard limit (what a server wants; the shell's 1024 is
    /// a default for interactive programs). Returns the soft limit in force afterwards.
    @discardableResult
    public static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        if getrlimit(resourceNoFile, &limit) == 0, limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(resourceNoFile, &limit)
        }
        return descriptorLimit()
    }

    #if os(Linux)
        private static let resourceNoFile = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resourceNoFile = RLIMIT_NOFILE
    #endif
}
