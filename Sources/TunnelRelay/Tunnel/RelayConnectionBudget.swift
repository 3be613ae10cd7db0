/// The relay-wide budgets one tunnel connection draws on, as ``RelayConnectionStateMachine`` asks
/// them: injected, so the machine can be driven in tests with budgets that refuse at will.
///
/// Only the two questions whose answer decides what happens to the frame at hand are calls (a
/// charge that would be asked for by an action and answered by a later event could be overtaken
/// by other connections' charges). What the machine gives back or reports to the budgets is an
/// action its shell performs: ``RelayConnectionStateMachine/Action/releaseQueued(_:)`` and a
/// tracked ``RelayConnectionStateMachine/Action/forward(payload:maskKey:tracked:)``.
protocol RelayConnectionBudget: AnyObject {
    /// Charges `bytes` to the pre-pairing budget; `false` (nothing charged) if they do not fit.
    func reserveQueued(_ bytes: Int) -> Bool
    /// The read path now holds `undecoded` bytes of incomplete frames and `fragments` bytes of an
    /// incomplete message; `false` if the growth does not fit the in-flight budget.
    func hold(undecoded: Int, fragments: Int) -> Bool
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

    func hold(undecoded: Int, fragments: Int) -> Bool {
        inFlight.holding(undecoded: undecoded, fragments: fragments)
        return inFlight.settle()
    }
}
