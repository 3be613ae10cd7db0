import HybridCore
import NIOConcurrencyHelpers
import NIOCore

/// One tunnel as both of its connections see it: created by `/cable/new`, joined by
/// `/cable/connect`, ended when either side ends.
///
/// Handlers only take the lock at joins and ends; forwarding uses the peer channel they cached.
final class TunnelPairing: Sendable {
    let tunnelID: TunnelID
    let routingID: RoutingID
    /// The `/cable/new` connection.
    let newChannel: any Channel
    /// The client that opened `/cable/new` (for the per-address pending cap).
    let ownerAddress: RelayClientAddress?
    /// When `/cable/new` registered, for the pairing-latency histogram.
    let createdAt: NIODeadline

    private struct State: Sendable {
        var connectChannel: (any Channel)?
        var ended: [TunnelSide: TunnelEndReason] = [:]
        var timers: [RelayTimer] = []
    }

    private let state = NIOLockedValueBox(State())

    init(
        tunnelID: TunnelID, routingID: RoutingID, newChannel: any Channel, ownerAddress: RelayClientAddress? = nil,
        createdAt: NIODeadline
    ) {
        self.tunnelID = tunnelID
        self.routingID = routingID
        self.newChannel = newChannel
        self.ownerAddress = ownerAddress
        self.createdAt = createdAt
    }

    /// Records the `/cable/connect` channel and cancels the pending-TTL timer. Returns `false` if
    /// the new side has already ended.
    func join(connectChannel: any Channel) -> Bool {
        let (joined, timers): (Bool, [RelayTimer]) = state.withLockedValue { state in
            guard state.ended.isEmpty else { return (false, []) }
            state.connectChannel = connectChannel
            defer { state.timers = [] }
            return (true, state.timers)
        }
        for timer in timers { timer.cancel() }
        return joined
    }

    /// The channel of `side`'s peer if it has joined, plus how that peer ended (if it has).
    func peer(of side: TunnelSide) -> (channel: (any Channel)?, ended: TunnelEndReason?) {
        state.withLockedValue { state in
            let channel: (any Channel)? = side == .connect ? newChannel : state.connectChannel
            return (channel, state.ended[side.other])
        }
    }

    /// What ``end(_:reason:)`` found.
    struct EndOutcome {
        /// The peer channel to close, if the peer has joined and not ended yet.
        var peerToClose: (any Channel)?
        /// This was the first side to end: the tunnel is over.
        var tunnelEnded: Bool
        /// The tunnel had been joined by `/cable/connect`.
        var wasJoined: Bool
    }

    /// Records that `side` is ending for `reason` (the first reason recorded for a side wins) and
    /// cancels the tunnel's timers when the tunnel ends.
    func end(_ side: TunnelSide, reason: TunnelEndReason) -> EndOutcome {
        let (outcome, timers): (EndOutcome, [RelayTimer]) = state.withLockedValue { state in
            let joined = state.connectChannel != nil
            guard state.ended[side] == nil else {
                return (EndOutcome(peerToClose: nil, tunnelEnded: false, wasJoined: joined), [])
            }
            state.ended[side] = reason
            let first = state.ended.count == 1
            let peer: (any Channel)? = side == .connect ? newChannel : state.connectChannel
            let timers = first ? state.timers : []
            if first { state.timers = [] }
            return (EndOutcome(peerToClose: first ? peer : nil, tunnelEnded: first, wasJoined: joined), timers)
        }
        for timer in timers { timer.cancel() }
        return outcome
    }

    /// How `side` ended, if it has.
    func endReason(of side: TunnelSide) -> TunnelEndReason? {
        state.withLockedValue { $0.ended[side] }
    }

    /// Keeps a timer (TTL, lifetime) so it is cancelled when the tunnel ends; cancels it at once
    /// if the tunnel has already ended.
    func addTimer(_ timer: RelayTimer) {
        let ended = state.withLockedValue { state in
            if state.ended.isEmpty { state.timers.append(timer) }
            return !state.ended.isEmpty
        }
        if ended { timer.cancel() }
    }

}
