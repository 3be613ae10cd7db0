import NIOCore

/// One object per event loop of a group, each ticked on its loop by one repeated task: the shape
/// of ``PingSweepers`` and ``RelayTimers``, which replace a timer per connection with one per loop.
struct PerLoopTicker<Value: AnyObject>: Sendable {
    private let boxes: [ObjectIdentifier: NIOLoopBoundBox<Value>]
    private let tasks: [RepeatedTask]

    /// Makes a value for every loop of `group` (on the calling thread, before any tick) and ticks it
    /// every `interval` on its loop.
    init(
        group: any EventLoopGroup, every interval: TimeAmount, make: () -> Value,
        tick: @escaping @Sendable (Value) -> Void
    ) {
        var boxes: [ObjectIdentifier: NIOLoopBoundBox<Value>] = [:]
        var tasks: [RepeatedTask] = []
        for eventLoop in group.makeIterator() {
            let box = NIOLoopBoundBox.makeBoxSendingValue(make(), as: Value.self, eventLoop: eventLoop)
            boxes[ObjectIdentifier(eventLoop)] = box
            tasks.append(
                eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in tick(box.value) })
        }
        self.boxes = boxes
        self.tasks = tasks
    }

    /// `eventLoop`'s box, if the group has that loop.
    func box(on eventLoop: any EventLoop) -> NIOLoopBoundBox<Value>? {
        boxes[ObjectIdentifier(eventLoop)]
    }

    /// Every loop's box.
    var allBoxes: Dictionary<ObjectIdentifier, NIOLoopBoundBox<Value>>.Values { boxes.values }

    /// Stops the ticks.
    func stop() {
        for task in tasks { task.cancel() }
    }
}
