/// The relay-wide budgets one tunnel connection draws on, as ``RelayConnectionStateMachine`` sees
/// them: injected, so the machine can be driven in tests with budgets that refuse at will.
protocol RelayConnectionBudget: AnyObject {
    /// Charges `bytes` to the pre-pairing budget; `false` (nothing charged) if they do not fit.
    func reserveQueued(_ bytes: Int) -> Bool
    /// Gives back bytes charged by ``reserveQueued(_:)``.
    func releaseQueued(_ bytes: Int)
    /// The read path now holds `undecoded` bytes of incomplete frames and `fragments` bytes of an
    /// incomplete message; `false` if the growth does not fit the in-flight budget.
    func hold(undecoded: Int, fragments: Int) -> Bool
    /// A whole message of `length` bytes, larger than the allowance, is being written to the peer
    /// (the shell reports the end of the write to the budget itself).
    func forwarding(_ length: Int)
}

/// The production budget: ``RelayAccounting`` for the pre-pairing queue, ``RelayInFlight`` for
/// the messages in flight.
final class RelayAccountedBudget: RelayConnectionBudget {
    private let accounting: RelayAccounting
    private let inFlight: RelayInFlight

    init(accounting: RelayAccounting, inFlight: RelayInFlight) {
        self.accounting = accounting
        self.inFlight = inFlight
    }

    func reserveQueued(_ bytes: Int) -> Bool { accounting.reserveQueued(bytes) }

    func releaseQueued(_ bytes: Int) { accounting.releaseQueued(bytes) }

    func hold(undecoded: Int, fragments: Int) -> Bool {
        inFlight.holding(undecoded: undecoded, fragments: fragments)
        return inFlight.settle()
    }

    func forwarding(_ length: Int) { inFlight.forwarding(length) }
}
