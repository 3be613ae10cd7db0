import HybridCore
import NIOConcurrencyHelpers
import NIOCore

/// All pending tunnels of one relay instance, keyed by tunnel ID, and how many each client IP
/// address holds, behind one lock.
///
/// Operations are O(1) dictionary work under the lock; nothing is awaited or written while it is
/// held. Paired tunnels are not stored here: their two connections hold the ``TunnelPairing``.
final class TunnelRegistry: Sendable {
    /// Outcome of ``register(tunnelID:channel:address:now:)``.
    enum Registration {
        case registered(TunnelPairing)
        case duplicate
        case full
        /// The address that asked already holds its share of pending tunnels.
        case addressFull
    }

    private struct State: Sendable {
        var pending: [TunnelID: TunnelPairing] = [:]
        var pendingPerAddress: [RelayClientAddress: Int] = [:]
        var paired = 0
        var random: any RandomNumberGenerator & Sendable
    }

    private let state: NIOLockedValueBox<State>
    private let routingIDPrefix: UInt8
    private let maxPending: Int
    private let maxPendingPerAddress: Int
    let metrics: RelayMetrics

    init(
        routingIDPrefix: UInt8,
        maxPending: Int,
        maxPendingPerAddress: Int = 0,
        random: any RandomNumberGenerator & Sendable,
        metrics: RelayMetrics
    ) {
        self.state = NIOLockedValueBox(State(random: random))
        self.routingIDPrefix = routingIDPrefix
        self.maxPending = maxPending
        self.maxPendingPerAddress = maxPendingPerAddress
        self.metrics = metrics
    }

    /// Registers a pending tunnel for `/cable/new/<tunnelID>` with a fresh routing ID: the instance
    /// prefix, then two random bytes. At most ``maxPendingPerAddress`` (when positive) per client
    /// `address` (`nil` when unknown: not counted).
    func register(tunnelID: TunnelID, channel: any Channel, address: RelayClientAddress?, now: NIODeadline)
        -> Registration
    {
        let (result, pendingCount): (Registration, Int) = state.withLockedValue { state in
            guard state.pending[tunnelID] == nil else { return (.duplicate, state.pending.count) }
            let fromAddress = address.map { state.pendingPerAddress[$0, default: 0] } ?? 0
            if maxPendingPerAddress > 0, fromAddress >= maxPendingPerAddress {
                return (.addressFull, state.pending.count)
            }
            guard state.pending.count < maxPending else { return (.full, state.pending.count) }
            let random = UInt16.random(in: .min ... .max, using: &state.random)
            let bytes = [routingIDPrefix, UInt8(truncatingIfNeeded: random >> 8), UInt8(truncatingIfNeeded: random)]
            guard let routingID = RoutingID(bytes: bytes) else { preconditionFailure("3 bytes make a routing ID") }
            let pairing = TunnelPairing(
                tunnelID: tunnelID, routingID: routingID, newChannel: channel, ownerAddress: address, createdAt: now
            )
            state.pending[tunnelID] = pairing
            if let address { state.pendingPerAddress[address] = fromAddress + 1 }
            return (.registered(pairing), state.pending.count)
        }
        metrics.pendingTunnels.record(pendingCount)
        return result
    }

    /// Takes the pending tunnel `(routingID, tunnelID)` for a `/cable/connect` channel, or returns
    /// `nil` if there is none (unknown, expired, already joined, or the routing ID differs).
    func claim(routingID: RoutingID, tunnelID: TunnelID, channel: any Channel) -> TunnelPairing? {
        let claimed: (TunnelPairing, pending: Int, paired: Int)? = state.withLockedValue { state in
            guard let pairing = state.pending[tunnelID], pairing.routingID == routingID else { return nil }
            state.pending[tunnelID] = nil
            Self.release(pairing, from: &state)
            guard pairing.join(connectChannel: channel) else { return nil }
            state.paired += 1
            return (pairing, state.pending.count, state.paired)
        }
        guard let claimed else { return nil }
        metrics.pendingTunnels.record(claimed.pending)
        metrics.pairedTunnels.record(claimed.paired)
        metrics.tunnelsPaired.increment()
        return claimed.0
    }

    /// Ends `side` of `pairing` for `reason` and keeps the counts right. Idempotent per side.
    ///
    /// - Returns: the peer channel that must now be closed, if any.
    func end(_ pairing: TunnelPairing, side: TunnelSide, reason: TunnelEndReason) -> (any Channel)? {
        let outcome = pairing.end(side, reason: reason)
        guard outcome.tunnelEnded else { return nil }
        let counts: (pending: Int, paired: Int) = state.withLockedValue { state in
            if outcome.wasJoined {
                state.paired -= 1
            } else if state.pending[pairing.tunnelID] === pairing {
                state.pending[pairing.tunnelID] = nil
                Self.release(pairing, from: &state)
            }
            return (state.pending.count, state.paired)
        }
        metrics.pendingTunnels.record(counts.pending)
        metrics.pairedTunnels.record(counts.paired)
        return outcome.peerToClose
    }

    /// Gives back the pending slot `pairing` took from its owner's address.
    private static func release(_ pairing: TunnelPairing, from state: inout State) {
        guard let address = pairing.ownerAddress else { return }
        let left = state.pendingPerAddress[address, default: 1] - 1
        state.pendingPerAddress[address] = left > 0 ? left : nil
    }

    /// Current numbers of pending and paired tunnels.
    var counts: (pending: Int, paired: Int) {
        state.withLockedValue { ($0.pending.count, $0.paired) }
    }

    /// Every pending tunnel (for shutdown).
    var pendingTunnels: [TunnelPairing] {
        state.withLockedValue { Array($0.pending.values) }
    }
}
