import NIOCore

/// One ping timer per event loop instead of one per connection (a repeated task per connection
/// costs ~0.8 KiB of RSS; this costs a dictionary entry).
///
/// Every ``RelayConfiguration/pingInterval`` it ticks each tunnel connection on its loop: a
/// connection that read nothing since the last tick is pinged, and one that stayed silent for
/// another tick is closed (see ``RelayTunnelHandler``). Connections are spread over
/// ``slices(for:)`` groups ticked one after another (one every ~50 ms), so pings go out in
/// small batches: a burst of thousands of pings would delay the frames of busy tunnels on the
/// same loop by milliseconds.
final class PingSweeper {
    /// Time between two ticks that the slice count aims at.
    static let tickTarget = TimeAmount.milliseconds(50)

    /// Groups per interval (16…1024); the timer fires that many times per interval.
    static func slices(for interval: TimeAmount) -> Int {
        Int(min(max(interval.nanoseconds / tickTarget.nanoseconds, 16), 1024))
    }

    private typealias Member = (handler: RelayTunnelHandler, context: ChannelHandlerContext)
    private var groups: [[ObjectIdentifier: Member]]
    private var nextGroup = 0
    private var current = 0
    /// Connections in all groups.
    private var memberCount = 0

    init(slices: Int) {
        groups = Array(repeating: [:], count: max(slices, 1))
    }

    /// Adds `handler` to the next group; returns the group, for ``remove(_:group:)``.
    func add(_ handler: RelayTunnelHandler, context: ChannelHandlerContext) -> Int {
        let group = nextGroup
        if groups[group].updateValue((handler, context), forKey: ObjectIdentifier(handler)) == nil { memberCount += 1 }
        nextGroup = (nextGroup + 1) % groups.count
        return group
    }

    func remove(_ handler: RelayTunnelHandler, group: Int) {
        guard groups.indices.contains(group) else { return }
        if groups[group].removeValue(forKey: ObjectIdentifier(handler)) != nil { memberCount -= 1 }
    }

    /// Ticks the next group; returns whether any connection is left to sweep.
    fileprivate func tick() -> Bool {
        let members = groups[current].values
        current = (current + 1) % groups.count
        for (handler, context) in members { handler.pingTick(context: context) }
        return memberCount > 0
    }

    /// One whole interval at once: every group ticks (for tests, which drive the sweeper instead
    /// of waiting for its timer).
    fileprivate func tickAllGroups() {
        for _ in groups.indices { _ = tick() }
    }
}

/// The sweepers of all event loops, made with the relay and stopped at shutdown; a loop's sweeper
/// ticks only while it has connections.
struct PingSweepers: Sendable {
    private let ticker: PerLoopTicker<PingSweeper>

    init(group: any EventLoopGroup, interval: TimeAmount) {
        let slices = PingSweeper.slices(for: interval)
        let tick = TimeAmount.nanoseconds(max(interval.nanoseconds / Int64(slices), 1))
        ticker = PerLoopTicker(group: group, every: tick, make: { PingSweeper(slices: slices) }, tick: { $0.tick() })
    }

    /// Adds `handler` to its loop's sweeper, whose ticks start if they were idle; returns its
    /// group, for ``remove(_:group:context:)`` (`nil` on a loop outside the relay's group). Call
    /// on the handler's loop.
    func add(_ handler: RelayTunnelHandler, context: ChannelHandlerContext) -> Int? {
        guard let sweeper = ticker.box(on: context.eventLoop)?.value else { return nil }
        let group = sweeper.add(handler, context: context)
        ticker.wake(on: context.eventLoop)
        return group
    }

    /// Takes `handler` out of its loop's sweeper. Call on the handler's loop.
    func remove(_ handler: RelayTunnelHandler, group: Int, context: ChannelHandlerContext) {
        ticker.box(on: context.eventLoop)?.value.remove(handler, group: group)
    }

    /// Whether a sweeper is ticking (tests).
    var isTicking: Bool { ticker.isTicking }

    /// Ticks every connection on every loop once, as a whole ping interval would; returns when
    /// done. Tests use it with a ping interval too long for the timer ever to fire.
    func tickAll() async throws {
        for sweeper in ticker.allBoxes {
            try await sweeper.eventLoop.submit { sweeper.value.tickAllGroups() }.get()
        }
    }

    func stop() {
        ticker.stop()
    }
}
