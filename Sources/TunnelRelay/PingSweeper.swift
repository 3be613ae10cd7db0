import NIOCore

/// One ping timer per event loop instead of one per connection (a repeated task per connection
/// costs ~0.8 KiB of RSS; this costs a dictionary entry).
///
/// Every ``RelayConfiguration/pingInterval`` it ticks each tunnel connection on its loop: a
/// connection that read nothing since the last tick is pinged, and one that stayed silent for
/// another tick is closed (see ``RelayTunnelHandler``). Connections are spread over
/// ``slices`` groups ticked one after another, so pings go out in small batches rather than
/// one burst per interval.
final class PingSweeper {
    /// Groups per interval; the timer fires `slices` times per interval.
    static let slices = 16

    private typealias Member = (handler: RelayTunnelHandler, context: ChannelHandlerContext)
    private var groups = [[ObjectIdentifier: Member]](repeating: [:], count: slices)
    private var nextGroup = 0
    private var current = 0

    func add(_ handler: RelayTunnelHandler, context: ChannelHandlerContext) {
        groups[nextGroup][ObjectIdentifier(handler)] = (handler, context)
        nextGroup = (nextGroup + 1) % Self.slices
    }

    func remove(_ handler: RelayTunnelHandler) {
        for index in groups.indices where groups[index].removeValue(forKey: ObjectIdentifier(handler)) != nil {
            return
        }
    }

    fileprivate func tick() {
        let members = groups[current].values
        current = (current + 1) % Self.slices
        for (handler, context) in members { handler.pingTick(context: context) }
    }
}

/// The sweepers of all event loops, started with the relay and stopped at shutdown.
struct PingSweepers: Sendable {
    private let sweepers: [ObjectIdentifier: NIOLoopBoundBox<PingSweeper>]
    private let tasks: [RepeatedTask]

    init(group: any EventLoopGroup, interval: TimeAmount) {
        let interval = TimeAmount.nanoseconds(max(interval.nanoseconds / Int64(PingSweeper.slices), 1))
        var sweepers: [ObjectIdentifier: NIOLoopBoundBox<PingSweeper>] = [:]
        var tasks: [RepeatedTask] = []
        for eventLoop in group.makeIterator() {
            let sweeper = NIOLoopBoundBox.makeBoxSendingValue(PingSweeper(), as: PingSweeper.self, eventLoop: eventLoop)
            sweepers[ObjectIdentifier(eventLoop)] = sweeper
            tasks.append(eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
                sweeper.value.tick()
            })
        }
        self.sweepers = sweepers
        self.tasks = tasks
    }

    /// The sweeper of `eventLoop`; call only on that loop.
    func sweeper(on eventLoop: any EventLoop) -> PingSweeper? {
        sweepers[ObjectIdentifier(eventLoop)]?.value
    }

    func stop() {
        for task in tasks { task.cancel() }
    }
}
