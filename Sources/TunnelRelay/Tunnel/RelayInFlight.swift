import NIOCore

/// The bytes of messages one connection has in flight, charged to the relay-wide budget
/// (``RelayConfiguration/maxInFlightBytesTotal``) beyond the connection's allowance:
///
/// - received but not yet a whole frame (the tunnel handler's read buffer),
/// - fragments of a message not yet complete (``RelayMessageAssembler``),
/// - whole messages larger than the allowance, forwarded to the peer and not yet written to its
///   socket.
///
/// A message moves from one stage to the next without growing the charge, so only newly read
/// bytes can need more budget: ``settle()`` after each read reserves it, or reports that it does
/// not fit. Used on the connection's event loop only.
final class RelayInFlight {
    private let accounting: RelayAccounting
    private let allowance: Int
    /// Bytes read and not yet decoded into a frame.
    private var undecoded = 0
    /// Payload bytes of the fragments of the message being reassembled.
    private var fragments = 0
    /// Payload bytes of forwarded messages not yet written to the peer.
    private var writing = 0
    /// What is charged to the relay-wide budget now.
    private var charged = 0
    private var ended = false

    init(accounting: RelayAccounting, allowance: Int) {
        self.accounting = accounting
        self.allowance = allowance
    }

    /// What the connection's read path holds now: `undecoded` bytes of frames not yet complete,
    /// and `fragments` payload bytes of a message not yet complete.
    func holding(undecoded: Int, fragments: Int) {
        self.undecoded = undecoded
        self.fragments = fragments
    }

    /// A whole message of `length` bytes was handed to the peer's socket; call ``written(_:)``
    /// once the write completes.
    func forwarding(_ length: Int) {
        writing += length
    }

    /// A forwarded message left the relay (written, or its write failed).
    func written(_ length: Int) {
        defer { accounting.observer.observe(.messageWritten) }
        guard !ended else { return }
        writing = max(0, writing - length)
        _ = settle()
    }

    /// Brings the relay-wide charge in line with what is held; `false` if the growth does not
    /// fit the budget (nothing more is charged then).
    func settle() -> Bool {
        guard !ended else { return true }
        let wanted = max(0, undecoded + fragments + writing - allowance)
        if wanted > charged {
            guard accounting.reserveInFlight(wanted - charged) else { return false }
        } else if wanted < charged {
            accounting.releaseInFlight(charged - wanted)
        }
        charged = wanted
        return true
    }

    /// The connection is gone: gives back everything it was charged.
    func end() {
        guard !ended else { return }
        ended = true
        accounting.endInFlight(charged)
        charged = 0
    }
}
