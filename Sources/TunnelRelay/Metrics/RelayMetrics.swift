import CoreMetrics
import Metrics
import Prometheus

/// The relay's metrics, registered in its own Prometheus registry (no global bootstrap, so
/// several relays can run in one process) and served on `/metrics`.
final class RelayMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    let pendingTunnels: CoreMetrics.Gauge
    let pairedTunnels: CoreMetrics.Gauge
    let openConnections: CoreMetrics.Gauge
    let tunnelsPaired: CoreMetrics.Counter
    let messagesForwarded: CoreMetrics.Counter
    let bytesForwarded: CoreMetrics.Counter
    let pairingLatency: CoreMetrics.Timer
    let queuedBytes: CoreMetrics.Gauge
    let inFlightBytes: CoreMetrics.Gauge
    let pausedConnections: CoreMetrics.Gauge
    let pongsSkipped: CoreMetrics.Counter
    let pingsSent: CoreMetrics.Counter
    let pongsReceived: CoreMetrics.Counter
    private let rejects: [RelayRejection: CoreMetrics.Counter]
    private let closes: [RelayCloseCode: CoreMetrics.Counter]

    init() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["relay_pairing_latency_seconds"] = [
            .milliseconds(1), .milliseconds(5), .milliseconds(25), .milliseconds(100), .milliseconds(250),
            .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10), .seconds(30), .seconds(60),
        ]
        self.registry = registry
        pendingTunnels = CoreMetrics.Gauge(label: "relay_tunnels_pending", factory: factory)
        pairedTunnels = CoreMetrics.Gauge(label: "relay_tunnels_paired", factory: factory)
        openConnections = CoreMetrics.Gauge(label: "relay_connections_open", factory: factory)
        tunnelsPaired = CoreMetrics.Counter(label: "relay_tunnels_paired_total", factory: factory)
        messagesForwarded = CoreMetrics.Counter(label: "relay_messages_forwarded_total", factory: factory)
        bytesForwarded = CoreMetrics.Counter(label: "relay_bytes_forwarded_total", factory: factory)
        pairingLatency = CoreMetrics.Timer(label: "relay_pairing_latency_seconds", factory: factory)
        queuedBytes = CoreMetrics.Gauge(label: "relay_prepairing_queued_bytes", factory: factory)
        inFlightBytes = CoreMetrics.Gauge(label: "relay_inflight_message_bytes", factory: factory)
        pausedConnections = CoreMetrics.Gauge(label: "relay_connections_read_paused", factory: factory)
        pongsSkipped = CoreMetrics.Counter(label: "relay_pongs_skipped_total", factory: factory)
        pingsSent = CoreMetrics.Counter(label: "relay_pings_sent_total", factory: factory)
        pongsReceived = CoreMetrics.Counter(label: "relay_pongs_received_total", factory: factory)
        rejects = Dictionary(
            uniqueKeysWithValues: RelayRejection.allCases.map {
                (
                    $0,
                    CoreMetrics.Counter(
                        label: "relay_rejects_total", dimensions: [("reason", $0.rawValue)], factory: factory)
                )
            })
        closes = Dictionary(
            uniqueKeysWithValues: RelayCloseCode.allCases.map {
                (
                    $0,
                    CoreMetrics.Counter(
                        label: "relay_closes_total", dimensions: [("code", String($0.rawValue))], factory: factory)
                )
            })
    }

    func rejected(_ reason: RelayRejection) { rejects[reason]?.increment() }

    func closed(with code: RelayCloseCode) { closes[code]?.increment() }

    /// The Prometheus text exposition of every metric.
    func exposition() -> [UInt8] { registry.emitToBuffer() }
}
