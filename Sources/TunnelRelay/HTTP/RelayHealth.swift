import NIOConcurrencyHelpers

/// Whether an instance wants new tunnels, as `/healthz` tells a load balancer.
///
/// Graceful shutdown first marks the instance draining: `/healthz` answers 503 `draining` while
/// everything else still works, so a balancer (HAProxy `option httpchk`) stops sending it
/// `/cable/new` before the listener closes. See ``RelayConfiguration/drainDelay``.
final class RelayHealth: Sendable {
    private let draining = NIOLockedValueBox(false)

    /// Set once graceful shutdown has begun; never cleared.
    var isDraining: Bool { draining.withLockedValue { $0 } }

    func startDraining() {
        draining.withLockedValue { $0 = true }
    }
}
