import NIOCore

extension RelayConnectionStateMachine {
    /// Where the connection is in its life (the diagram is on ``RelayConnectionStateMachine``).
    /// Each case holds only what that stage needs: a queue exists only while the peer is
    /// awaited, and a closing connection has none.
    enum State {
        /// The peer's connection is not known yet: messages wait in the queue.
        case awaitingPeer(PrePairingQueue)
        /// Messages go to the peer as they are read.
        case paired
        /// A close frame was sent or received: no more messages or pongs are sent; the client's
        /// close reply (or the close timer) ends TCP.
        case closing(Closing)
        /// The TCP connection is gone: no later event changes anything, except that the read
        /// cycle in progress still flushes and counts what it forwarded to a joined peer.
        case closed(peerJoined: Bool)
        /// Only while an associated value is changed in place (no copy-on-write of the queue).
        case modifying
    }

    /// Encoded messages, with their payload lengths, for a peer that has not joined yet, and what
    /// they are charged to the relay-wide pre-pairing budget.
    struct PrePairingQueue {
        var messages: [(frame: ByteBuffer, length: Int)] = []
        var chargedBytes = 0
    }

    /// A connection that sent or received a close frame.
    struct Closing {
        /// Who sent the first close frame.
        enum Initiator: Equatable {
            /// The relay, with this code (limits, timers, the peer's end, shutdown).
            case relay(RelayCloseCode)
            /// The client (its close code was echoed).
            case client
        }

        var initiator: Initiator
        /// The peer's connection is known (what a read cycle forwarded is still flushed to it).
        var peerJoined: Bool
        /// Frames are still cut out of what is read (`false` once the frame stream cannot be
        /// parsed any more, or is being discarded).
        var readsFrames: Bool
    }

    /// Whether the client is alive, per ping interval: besides ``State`` because it changes on
    /// every frame in every open state.
    struct Liveness {
        /// What was heard from the client since the last tick.
        enum Silence {
            /// A frame was read since the last tick.
            case heard
            /// Nothing was read since the last tick, and no ping is outstanding.
            case quiet
            /// The relay pinged and nothing was read since.
            case pinged
        }

        /// `heard` at first: the client has just sent its upgrade request. So a connection is pinged
        /// only after a whole tick of silence, however soon after the upgrade its first tick comes
        /// (a loop's sweeper starts ticking when its first connection arrives, and that connection's
        /// group is the one ticked first).
        var silence = Silence.heard
        /// Pings received since the last tick (``Limits/maxPingsPerInterval``).
        var pingsSinceTick = 0
        /// A pong is being written (at most one at a time).
        var pongInFlight = false
    }

    /// Why reading is paused: reading stops when the first reason appears and resumes when the
    /// last one goes.
    struct ReadPauses {
        private(set) var reasons: RelayReadPause = []

        /// Adds `reason`; `true` if reading was on until now.
        mutating func add(_ reason: RelayReadPause) -> Bool {
            guard !reasons.contains(reason) else { return false }
            let wasReading = reasons.isEmpty
            reasons.insert(reason)
            return wasReading
        }

        /// Removes `reason`; `true` if it was the last one (reading resumes).
        mutating func remove(_ reason: RelayReadPause) -> Bool {
            guard reasons.contains(reason) else { return false }
            reasons.remove(reason)
            return reasons.isEmpty
        }

        /// Removes every reason; `true` if reading was paused.
        mutating func removeAll() -> Bool {
            defer { reasons = [] }
            return !reasons.isEmpty
        }
    }
}
