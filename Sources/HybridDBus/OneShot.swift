import Synchronization

/// A value that is set once (by a blocking thread) and awaited (by async code).
/// The first ``fulfil(_:)`` wins; later calls are ignored.
package final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case pending([CheckedContinuation<Value, Never>])
        case done(Value)
    }

    private let state = Mutex<State>(.pending([]))

    /// Not set yet.
    package init() {}

    /// Sets the value and wakes every waiter. Returns `false` if the value was already set.
    @discardableResult
    package func fulfil(_ value: Value) -> Bool {
        let waiters: [CheckedContinuation<Value, Never>]? = state.withLock { state in
            guard case .pending(let waiters) = state else { return nil }
            state = .done(value)
            return waiters
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume(returning: value) }
        return true
    }

    /// Whether the value has been set (does not wait).
    package var isSet: Bool {
        state.withLock { state in
            if case .done = state { return true }
            return false
        }
    }

    /// The value, once set.
    package var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let ready: Value? = state.withLock { state in
                    switch state {
                    case .done(let value):
                        return value
                    case .pending(var waiters):
                        waiters.append(continuation)
                        state = .pending(waiters)
                        return nil
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
