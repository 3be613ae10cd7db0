/// How the tunnel of a ceremony ended once its response had been delivered: the client keeps it
/// open after its shutdown for a late update (protocol.md §7.5), until the phone closes or
/// ``HybridClientOptions/linger`` runs out.
public struct HybridSessionEnd: Sendable, Equatable {
    /// Why the tunnel closed.
    public enum Reason: Sendable, Equatable {
        /// Closed right after the response: revision 0 has no shutdown, or the linger is zero.
        case closedAtOnce
        /// The phone closed the tunnel (the usual end).
        case phoneClosed
        /// ``HybridClientOptions/linger`` ran out; the client closed the tunnel.
        case lingerExpired
        /// The calling task was cancelled; the client closed the tunnel.
        case cancelled
        /// A late message was invalid, or the tunnel broke; the client closed the tunnel. The
        /// delivered response stands.
        case failed(HybridClientError)
    }

    /// Why the tunnel closed.
    public var reason: Reason
    /// Update messages the session accepted after the response (late linking updates, §7.4),
    /// validated exactly like updates before it. This client offers no linking, so they are
    /// counted, not stored.
    public var lateUpdates: Int

    /// An end for `reason`, after `lateUpdates` update messages.
    public init(reason: Reason, lateUpdates: Int = 0) {
        self.reason = reason
        self.lateUpdates = lateUpdates
    }
}
