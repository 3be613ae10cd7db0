import NIOConcurrencyHelpers
import NIOCore

/// Counts and remembers every open connection, in total and per client (``RelayClientAddress``), so the relay
/// can enforce its connection limits and close everything at shutdown, and knows when the last
/// connection has gone.
final class ConnectionTracker: Sendable {
    private struct State: Sendable {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var perAddress: [RelayClientAddress: Int] = [:]
        var drainedPromise: EventLoopPromise<Void>?
    }

    private let state = NIOLockedValueBox(State())
    private let metrics: RelayMetrics

    init(metrics: RelayMetrics) {
        self.metrics = metrics
    }

    /// Adds `channel` until it closes. Returns the number of open connections including it.
    func track(_ channel: any Channel) -> Int {
        let id = ObjectIdentifier(channel)
        let total: Int = state.withLockedValue { state in
            state.channels[id] = channel
            return state.channels.count
        }
        metrics.openConnections.record(total)
        channel.closeFuture.whenComplete { _ in
            let (count, drained): (Int, EventLoopPromise<Void>?) = self.state.withLockedValue { state in
                state.channels[id] = nil
                guard state.channels.isEmpty, let promise = state.drainedPromise else {
                    return (state.channels.count, nil)
                }
                state.drainedPromise = nil
                return (0, promise)
            }
            self.metrics.openConnections.record(count)
            drained?.succeed()
        }
        return total
    }

    /// Counts `channel` (already tracked) against `address` until it closes: at accept, or once a
    /// PROXY header named the client. Returns the open connections from `address` including it.
    func count(_ channel: any Channel, from address: RelayClientAddress) -> Int {
        let fromAddress: Int = state.withLockedValue { state in
            let count = state.perAddress[address, default: 0] + 1
            state.perAddress[address] = count
            return count
        }
        channel.closeFuture.whenComplete { _ in
            self.state.withLockedValue { state in
                let left = state.perAddress[address, default: 1] - 1
                state.perAddress[address] = left > 0 ? left : nil
            }
        }
        return fromAddress
    }

    /// A snapshot of the open connections.
    var channels: [any Channel] {
        state.withLockedValue { Array($0.channels.values) }
    }

    var count: Int { state.withLockedValue { $0.channels.count } }

    /// Completes when no connection is open (at once if none is).
    func drained(on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        state.withLockedValue { state in
            if state.channels.isEmpty { return eventLoop.makeSucceededVoidFuture() }
            if let existing = state.drainedPromise { return existing.futureResult }
            let promise = eventLoop.makePromise(of: Void.self)
            state.drainedPromise = promise
            return promise.futureResult
        }
    }
}
