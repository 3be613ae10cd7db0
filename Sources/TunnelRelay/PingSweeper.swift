import NIOCore

/// One ping timer per event loop instead of one per connection (a repeated task per connection
/// costs ~0.8 KiB of RSS; this costs a dictionary entry).
///
/// Every ``RelayConfiguration/pingInterval`` it ticks each tunnel connection on its loop: a
/// connection that read nothing since the last tick is pinged, and one that stayed silent for
/// another tick is closed (see ``RelayTunnelHandler``).
final class PingSweeper {
    private var members: [ObjectIdentifier: (handler: RelayTunnelHandler, context: ChannelHandlerContext)] = [:]

    func add(_ handler: RelayTunnelHandler, context: ChannelHandlerContext) {
        members[ObjectIdentifier(handler)] = (handler, context)
    }

    func remove(_ handler: RelayTunnelHandler) {
        members[ObjectIdentifier(handler)] = nil
    }

    fileprivate func tick() {
        for (handler, context) in members.values { handler.pingTick(context: context) }
    }
}

/// The sweepers of all event loops, started with the relay and stopped at shutdown.
struct PingSweepers: Sendable {
    private let sweepers: [ObjectIdentifier: NIOLoopBoundBox<PingSweeper>]
    private let tasks: [RepeatedTask]

    init(group: any EventLoopGroup, interval: TimeAmount) {
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
