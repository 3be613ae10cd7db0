import NIOConcurrencyHelpers
import NIOCore

/// Counts and remembers every open connection, in total and per client IP address, so the relay
/// can enforce its connection limits and close everything at shutdown, and knows when the last
/// connection has gone.
final class ConnectionTracker: Sendable {
    private struct State: Sendable {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var perAddress: [String: Int] = [:]
        var drainedPromise: EventLoopPromise<Void>?
    }

    private let state = NIOLockedValueBox(State())
    private let metrics: RelayMetrics

    init(metrics: RelayMetrics) {
        self.metrics = metrics
    }

    /// Adds `channel` until it closes. Returns the number of open connections including it, in
    /// total and from its IP address (0 when the address is unknown).
    func track(_ channel: any Channel) -> (total: Int, fromAddress: Int) {
        let id = ObjectIdentifier(channel)
        let address = channel.remoteAddress?.ipAddress
        let counts: (Int, Int) = state.withLockedValue { state in
            state.channels[id] = channel
            guard let address else { return (state.channels.count, 0) }
            let fromAddress = state.perAddress[address, default: 0] + 1
            state.perAddress[address] = fromAddress
            return (state.channels.count, fromAddress)
        }
        metrics.openConnections.record(counts.0)
        channel.closeFuture.whenComplete { _ in
            let (count, drained): (Int, EventLoopPromise<Void>?) = self.state.withLockedValue { state in
                state.channels[id] = nil
                if let address {
                    let left = state.perAddress[address, default: 1] - 1
                    state.perAddress[address] = left > 0 ? left : nil
                }
                guard state.channels.isEmpty, let promise = state.drainedPromise else {
                    return (state.channels.count, nil)
                }
                state.drainedPromise = nil
                return (0, promise)
            }
            self.metrics.openConnections.record(count)
            drained?.succeed()
        }
        return counts
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
