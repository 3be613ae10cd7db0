import NIOConcurrencyHelpers
import NIOCore

/// The metrics listener's connection cap: a count of its open connections, apart from the
/// tunnel port's ``ConnectionTracker`` (so its connections neither count against the tunnel
/// port's limits nor show in `relay_connections_open`).
final class RelayMetricsSlots: Sendable {
    private let limit: Int
    private let open = NIOLockedValueBox(0)

    /// At most `limit` connections at once.
    init(limit: Int) { self.limit = limit }

    /// Takes a slot until `closed` completes; `false` (nothing taken) when all are taken.
    func take(until closed: EventLoopFuture<Void>) -> Bool {
        let taken = open.withLockedValue { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        if taken { closed.whenComplete { _ in self.open.withLockedValue { $0 -= 1 } } }
        return taken
    }
}
