import NIOConcurrencyHelpers
import Testing

@testable import TunnelRelay

/// Records what a relay reports through its observer, so a test waits for the event itself instead
/// of sleeping. One consumer: each ``next(where:)`` resumes after the event the previous one took.
final class ObservedEventRecorder: RelayObserver {
    private typealias Predicate = @Sendable (RelayObservedEvent) -> Bool

    private struct State {
        var events: [RelayObservedEvent] = []
        var cursor = 0
        var waiter: (predicate: Predicate, continuation: CheckedContinuation<RelayObservedEvent?, Never>)?
        var cancelled = false
    }

    private let state = NIOLockedValueBox(State())

    /// The observer to hand to the relay.
    var observer: any RelayObserver { self }

    func observe(_ event: RelayObservedEvent) {
        let resumed: CheckedContinuation<RelayObservedEvent?, Never>? = state.withLockedValue { state in
            state.events.append(event)
            guard let waiter = state.waiter, waiter.predicate(event) else { return nil }
            state.waiter = nil
            state.cursor = state.events.count
            return waiter.continuation
        }
        resumed?.resume(returning: event)
    }

    /// The first event after the last one returned that satisfies `predicate`, waiting for it;
    /// `nil` (and a recorded issue) if the task is cancelled first, as the suite's time limit
    /// does: a missing event fails the test instead of hanging it.
    @discardableResult
    func next(
        where predicate: @escaping @Sendable (RelayObservedEvent) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> RelayObservedEvent? {
        let event: RelayObservedEvent? = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let found: RelayObservedEvent?? = state.withLockedValue { state in
                    if let index = state.events[state.cursor...].firstIndex(where: predicate) {
                        state.cursor = index + 1
                        return .some(state.events[index])
                    }
                    if state.cancelled { return .some(nil) }
                    state.waiter = (predicate, continuation)
                    return nil
                }
                if let found { continuation.resume(returning: found) }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state in
                state.cancelled = true
                defer { state.waiter = nil }
                return state.waiter?.continuation
            }
            waiter?.resume(returning: nil)
        }
        if event == nil { Issue.record("cancelled while waiting for a relay event", sourceLocation: sourceLocation) }
        return event
    }

    /// Waits for `event`.
    func next(_ event: RelayObservedEvent, sourceLocation: SourceLocation = #_sourceLocation) async {
        await next(where: { $0 == event }, sourceLocation: sourceLocation)
    }

    /// Every event so far, in order (for a failure's message).
    var recorded: [RelayObservedEvent] { state.withLockedValue { $0.events } }

    /// How many recorded events satisfy `predicate`.
    func count(where predicate: (RelayObservedEvent) -> Bool) -> Int {
        state.withLockedValue { $0.events.filter(predicate).count }
    }
}
