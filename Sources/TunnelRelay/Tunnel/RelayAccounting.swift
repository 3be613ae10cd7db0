import NIOConcurrencyHelpers

/// Memory the relay holds for clients that it counts across all connections: the bytes queued
/// before pairing (against ``RelayConfiguration/maxQueuedBytesTotal``), the bytes of messages in
/// flight beyond each connection's allowance (against ``RelayConfiguration/maxInFlightBytesTotal``)
/// and the connections whose reads are paused. Thread-safe; every change is mirrored in the metrics.
final class RelayAccounting: Sendable {
    /// What the pre-pairing budget charges per queued message on top of its payload: the frame
    /// and array bookkeeping, so a flood of tiny messages is charged for what it costs.
    static let queuedMessageOverhead = 64

    private struct State {
        var queuedBytes = 0
        var inFlightBytes = 0
        var pausedConnections = 0
    }

    private let state = NIOLockedValueBox(State())
    private let maxQueuedBytesTotal: Int
    private let maxInFlightBytesTotal: Int
    private let metrics: RelayMetrics
    /// Who watches the relay's events; ``UnobservedRelay`` but in tests.
    let observer: any RelayObserver

    init(
        maxQueuedBytesTotal: Int, maxInFlightBytesTotal: Int, metrics: RelayMetrics,
        observer: any RelayObserver = UnobservedRelay()
    ) {
        self.maxQueuedBytesTotal = maxQueuedBytesTotal
        self.maxInFlightBytesTotal = maxInFlightBytesTotal
        self.metrics = metrics
        self.observer = observer
    }

    /// Charges `bytes` to the global pre-pairing budget; `false` (and nothing charged) if they
    /// do not fit.
    func reserveQueued(_ bytes: Int) -> Bool {
        guard let total = reserve(bytes, in: \.queuedBytes, limit: maxQueuedBytesTotal) else {
            observer.observe(.queueBudgetExhausted)
            return false
        }
        metrics.queuedBytes.record(total)
        observer.observe(.queued(totalBytes: total))
        return true
    }

    /// Gives back bytes charged by ``reserveQueued(_:)``.
    func releaseQueued(_ bytes: Int) {
        guard bytes > 0 else { return }
        metrics.queuedBytes.record(release(bytes, from: \.queuedBytes))
    }

    /// Adds `bytes` to `counter` if the sum stays within `limit`; the new total, or `nil`.
    private func reserve(_ bytes: Int, in counter: WritableKeyPath<State, Int>, limit: Int) -> Int? {
        state.withLockedValue { state in
            guard state[keyPath: counter] + bytes <= limit else { return nil }
            state[keyPath: counter] += bytes
            return state[keyPath: counter]
        }
    }

    /// Takes `bytes` off `counter`; the new total.
    private func release(_ bytes: Int, from counter: WritableKeyPath<State, Int>) -> Int {
        state.withLockedValue { state in
            state[keyPath: counter] -= bytes
            return state[keyPath: counter]
        }
    }

    /// Bytes queued before pairing, across all tunnels.
    var queuedBytes: Int { state.withLockedValue { $0.queuedBytes } }

    /// Charges `bytes` of messages in flight to the relay-wide budget; `false` (and nothing
    /// charged) if they do not fit.
    func reserveInFlight(_ bytes: Int) -> Bool {
        guard let total = reserve(bytes, in: \.inFlightBytes, limit: maxInFlightBytesTotal) else {
            observer.observe(.inFlightBudgetExhausted)
            return false
        }
        metrics.inFlightBytes.record(total)
        observer.observe(.inFlight(totalBytes: total))
        return true
    }

    /// Gives back bytes charged by ``reserveInFlight(_:)``.
    func releaseInFlight(_ bytes: Int) {
        guard bytes > 0 else { return }
        let total = release(bytes, from: \.inFlightBytes)
        metrics.inFlightBytes.record(total)
        observer.observe(.inFlight(totalBytes: total))
    }

    /// A connection ended: gives back the `bytes` it had charged with ``reserveInFlight(_:)``.
    func endInFlight(_ bytes: Int) {
        let total = release(bytes, from: \.inFlightBytes)
        metrics.inFlightBytes.record(total)
        observer.observe(.inFlightEnded(totalBytes: total))
    }

    /// Bytes of messages in flight beyond the per-connection allowances, across all connections.
    var inFlightBytes: Int { state.withLockedValue { $0.inFlightBytes } }

    /// Connections whose reads are paused now.
    var pausedConnections: Int { state.withLockedValue { $0.pausedConnections } }

    /// A connection paused (`true`) or resumed (`false`) reading.
    func readsPaused(_ paused: Bool, reasons: RelayReadPause) {
        let count = state.withLockedValue { state in
            state.pausedConnections += paused ? 1 : -1
            return state.pausedConnections
        }
        metrics.pausedConnections.record(count)
        observer.observe(paused ? .readsPaused(reasons) : .readsResumed)
    }

    /// A ping was left unanswered because a pong was still being written or the socket was full.
    func pongSkipped() {
        metrics.pongsSkipped.increment()
        observer.observe(.pongSkipped)
    }

    /// The relay pinged a silent connection.
    func pinged() {
        metrics.pingsSent.increment()
        observer.observe(.pinged)
    }

    /// A pong arrived (the answer to the relay's ping, or unsolicited).
    func pongReceived() {
        metrics.pongsReceived.increment()
        observer.observe(.pongReceived)
    }
}

/// Why a connection stopped reading (several reasons may hold at once; reading resumes when none
/// does).
struct RelayReadPause: OptionSet, Sendable, Hashable {
    let rawValue: UInt8
    /// The peer's socket is full: reading more would only queue it in the relay.
    static let peerNotWritable = RelayReadPause(rawValue: 1)
    /// This socket is full and its client sent a ping: it is not reading what it is sent.
    static let notWritable = RelayReadPause(rawValue: 2)
    /// A ping arrived while the pong for an earlier one was still being written.
    static let pongPending = RelayReadPause(rawValue: 4)
    /// The pre-pairing queue reached its per-tunnel size.
    static let queueFull = RelayReadPause(rawValue: 8)
    /// The relay is closing this connection for flooding: nothing it sends matters any more.
    static let closing = RelayReadPause(rawValue: 16)
}

/// What a relay reports to a test observing it (``RelayObserver``): the events a test waits for
/// instead of sleeping.
enum RelayObservedEvent: Sendable, Equatable {
    /// A message was queued before pairing; the global queued total is now `totalBytes`.
    case queued(totalBytes: Int)
    /// A message did not fit the global pre-pairing budget.
    case queueBudgetExhausted
    /// The charge of messages in flight changed; the relay-wide total is now `totalBytes`.
    case inFlight(totalBytes: Int)
    /// A connection's message in flight did not fit the relay-wide budget.
    case inFlightBudgetExhausted
    /// A connection ended and gave back its in-flight charge; the total is now `totalBytes`.
    case inFlightEnded(totalBytes: Int)
    /// A forwarded message was written to the peer (or its write failed) and left the relay.
    case messageWritten
    case readsPaused(RelayReadPause)
    case readsResumed
    case pongSkipped
    /// A connection finished its upgrade and joined its loop's ping sweeper (the 101 response
    /// can reach the client a moment before).
    case tunnelOpened
    /// The ping sweeper sent a ping.
    case pinged
    /// A pong arrived.
    case pongReceived
}

/// What a test injects into a relay to watch its ``RelayObservedEvent``s. A relay that serves uses
/// ``UnobservedRelay``, which watches nothing.
protocol RelayObserver: Sendable {
    /// Called on any thread; must not block.
    func observe(_ event: RelayObservedEvent)
}

/// The observer of a relay that serves: it watches nothing.
struct UnobservedRelay: RelayObserver {
    func observe(_ event: RelayObservedEvent) {}
}
