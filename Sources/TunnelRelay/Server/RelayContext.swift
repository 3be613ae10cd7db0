import Logging
import NIOCore

/// What every connection of one relay instance shares: configuration, registry, metrics, logger.
///
/// A class, not a struct: every handler, timer and close callback of every connection keeps it,
/// and a copy of the configuration in each of them cost about 2 KB per paired tunnel.
final class RelayContext: Sendable {
    let configuration: RelayConfiguration
    let registry: TunnelRegistry
    let metrics: RelayMetrics
    let tracker: ConnectionTracker
    let pingSweepers: PingSweepers
    let timers: RelayTimers
    let accounting: RelayAccounting
    let logger: Logger

    init(
        configuration: RelayConfiguration, registry: TunnelRegistry, metrics: RelayMetrics, tracker: ConnectionTracker,
        pingSweepers: PingSweepers, timers: RelayTimers, accounting: RelayAccounting, logger: Logger
    ) {
        self.configuration = configuration
        self.registry = registry
        self.metrics = metrics
        self.tracker = tracker
        self.pingSweepers = pingSweepers
        self.timers = timers
        self.accounting = accounting
        self.logger = logger
    }

    /// Ends `side` for `reason` and tells the peer (if any) to close with the matching code.
    func end(_ pairing: TunnelPairing, side: TunnelSide, reason: TunnelEndReason) {
        guard let peer = registry.end(pairing, side: side, reason: reason) else { return }
        logger.debug(
            "tunnel ending",
            metadata: [
                "tunnel.id": "\(pairing.tunnelID)", "routing.id": "\(pairing.routingID)",
                "tunnel.side": "\(side)", "tunnel.reason": "\(reason)",
            ]
        )
        peer.pipeline.fireUserInboundEventTriggered(RelayCloseCommand(code: reason.codeForPeer))
    }

    /// Ends `side` as dropped when its connection closes, unless it already ended otherwise.
    func watch(_ pairing: TunnelPairing, side: TunnelSide, channel: any Channel) {
        let context = self
        channel.closeFuture.whenComplete { _ in
            context.end(pairing, side: side, reason: .dropped)
        }
    }

    /// Expires a pending tunnel after ``RelayConfiguration/pendingTunnelTTL``.
    func startPendingTimer(_ pairing: TunnelPairing) {
        let context = self
        let channel = pairing.newChannel
        let timer = timers.schedule(on: channel.eventLoop, in: TimeAmount(configuration.pendingTunnelTTL)) {
            context.logger.debug("pending tunnel expired", metadata: ["tunnel.id": "\(pairing.tunnelID)"])
            context.end(pairing, side: .new, reason: .relay(.pendingExpired))
            channel.pipeline.fireUserInboundEventTriggered(RelayCloseCommand(code: .pendingExpired))
        }
        pairing.addTimer(timer)
    }

    /// Ends a paired tunnel after ``RelayConfiguration/pairedTunnelLifetime``.
    func startLifetimeTimer(_ pairing: TunnelPairing, connectChannel: any Channel) {
        let context = self
        let timer = timers.schedule(on: connectChannel.eventLoop, in: TimeAmount(configuration.pairedTunnelLifetime)) {
            context.end(pairing, side: .connect, reason: .relay(.lifetimeExceeded))
            connectChannel.pipeline.fireUserInboundEventTriggered(RelayCloseCommand(code: .lifetimeExceeded))
        }
        pairing.addTimer(timer)
    }
}

/// Per-connection handshake state shared by ``RelayChannelInitializer`` (and its PROXY v2 handler)
/// and ``RelayRequestGate``; only touched on the connection's event loop.
final class RelayHandshake {
    /// The client the per-address limits count this connection against: the socket's peer, or
    /// the source a PROXY header named (``RelayConfiguration/proxyProtocol``).
    var client: RelayClientAddress?
    /// Closes connections that are not upgraded or answered in time.
    var timeout: RelayTimer?
}
