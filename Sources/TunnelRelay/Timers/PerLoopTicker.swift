import NIOCore
import Synchronization

/// One object per event loop of a group, each ticked on its loop by one repeated task while it has
/// work: the shape of ``PingSweepers`` and ``RelayTimers``, which replace a timer per connection
/// with one per loop.
///
/// A loop's ticks start with ``wake(on:)`` (called when work is added) and stop when the tick
/// says no work is left, so an idle relay has no timer at all and its threads sleep until the
/// next connection (measured before: two 20-Hz ticks per loop, about 30 wake-ups a second per
/// loop with nothing open).
struct PerLoopTicker<Value: AnyObject>: Sendable {
    /// A loop's repeated task while it runs; `stopped` once ``stop()`` was called.
    private final class Run: Sendable {
        let state = Mutex<(task: RepeatedTask?, stopped: Bool)>((nil, false))
    }

    private let boxes: [ObjectIdentifier: NIOLoopBoundBox<Value>]
    private let runs: [ObjectIdentifier: Run]
    private let interval: TimeAmount
    private let tick: @Sendable (Value) -> Bool

    /// Makes a value for every loop of `group` (on the calling thread, before any tick). After a
    /// ``wake(on:)`` the loop's value is ticked every `interval` on its loop until `tick` returns
    /// `false` (no work left).
    init(
        group: any EventLoopGroup, every interval: TimeAmount, make: () -> Value,
        tick: @escaping @Sendable (Value) -> Bool
    ) {
        var boxes: [ObjectIdentifier: NIOLoopBoundBox<Value>] = [:]
        var runs: [ObjectIdentifier: Run] = [:]
        for eventLoop in group.makeIterator() {
            boxes[ObjectIdentifier(eventLoop)] = NIOLoopBoundBox.makeBoxSendingValue(
                make(), as: Value.self, eventLoop: eventLoop)
            runs[ObjectIdentifier(eventLoop)] = Run()
        }
        self.boxes = boxes
        self.runs = runs
        self.interval = interval
        self.tick = tick
    }

    /// `eventLoop`'s box, if the group has that loop.
    func box(on eventLoop: any EventLoop) -> NIOLoopBoundBox<Value>? {
        boxes[ObjectIdentifier(eventLoop)]
    }

    /// Every loop's box.
    var allBoxes: Dictionary<ObjectIdentifier, NIOLoopBoundBox<Value>>.Values { boxes.values }

    /// Starts `eventLoop`'s ticks unless they run (or the ticker was stopped). Call on `eventLoop`
    /// after adding work to its value.
    func wake(on eventLoop: any EventLoop) {
        let key = ObjectIdentifier(eventLoop)
        guard let box = boxes[key], let run = runs[key] else { return }
        let tick = self.tick
        run.state.withLock { state in
            guard state.task == nil, !state.stopped else { return }
            state.task = eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { task in
                guard !tick(box.value) else { return }
                // No work left: the loop sleeps until the next wake(on:), which runs on this loop
                // too, so it cannot come between this tick and the cancel.
                run.state.withLock { state in
                    if state.task === task { state.task = nil }
                }
                task.cancel()
            }
        }
    }

    /// Whether the ticks run on any loop (tests).
    var isTicking: Bool {
        runs.values.contains { run in run.state.withLock { $0.task != nil } }
    }

    /// Stops the ticks for good; callable from any thread.
    func stop() {
        for run in runs.values {
            let task = run.state.withLock { state in
                state.stopped = true
                defer { state.task = nil }
                return state.task
            }
            task?.cancel()
        }
    }
}
