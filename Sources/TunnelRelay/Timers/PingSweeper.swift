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

    init(slices: Int) {
        groups = Array(repeating: [:], count: max(slices, 1))
    }

    /// Adds `handler` to the next group; returns the group, for ``remove(_:group:)``.
    func add(_ handler: RelayTunnelHandler, context: ChannelHandlerContext) -> Int {
        let group = nextGroup
        groups[group][ObjectIdentifier(handler)] = (handler, context)
        nextGroup = (nextGroup + 1) % groups.count
        return group
    }

    func remove(_ handler: RelayTunnelHandler, group: Int) {
        guard groups.indices.contains(group) else { return }
        groups[group][ObjectIdentifier(handler)] = nil
    }

    fileprivate func tick() {
        let members = groups[current].values
        current = (current + 1) % groups.count
        for (handler, context) in members { handler.pingTick(context: context) }
    }

    /// One whole interval at once: every group ticks (for tests, which drive the sweeper instead
    /// of waiting for its timer).
    fileprivate func tickAllGroups() {
        for _ in groups.indices { tick() }
    }
}

/// The sweepers of all event loops, started with the relay and stopped at shutdown.
struct PingSweepers: Sendable {
    private let ticker: PerLoopTicker<PingSweeper>

    init(group: any EventLoopGroup, interval: TimeAmount) {
        let slices = PingSweeper.slices(for: interval)
        let tick = TimeAmount.nanoseconds(max(interval.nanoseconds / Int64(slices), 1))
        ticker = PerLoopTicker(group: group, every: tick, make: { PingSweeper(slices: slices) }, tick: { $0.tick() })
    }

    /// The sweeper of `eventLoop`; call only on that loop.
    func sweeper(on eventLoop: any EventLoop) -> PingSweeper? {
        ticker.box(on: eventLoop)?.value
    }

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
