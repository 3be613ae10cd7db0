import NIOCore

/// The relay's per-connection and per-tunnel timers (handshake timeout, pending-tunnel TTL,
/// paired-tunnel lifetime, close timeout): one ``DeadlineWheel`` per event loop, ticked every
/// ``resolution`` by one repeated task while it holds a timer (none while the relay is idle),
/// instead of one SwiftNIO scheduled task each. SwiftNIO
/// cancels a scheduled task by searching its loop's heap of them, so with N open tunnels (each
/// with its lifetime timer) every cancelled timer cost O(N); here it costs a dictionary removal.
///
/// Schedule on the loop the timer belongs to; cancel from any thread.
struct RelayTimers: Sendable {
    /// How late a timer may fire: the wheels' slot width and tick. (None of the relay's timers
    /// needs better: the shortest by default is the 2 s close timeout.)
    static let resolution = TimeAmount.milliseconds(50)

    /// One loop's wheel: touched only on that loop.
    final class Wheel {
        fileprivate var deadlines: DeadlineWheel<() -> Void>

        init() {
            deadlines = DeadlineWheel(
                slotWidth: UInt64(RelayTimers.resolution.nanoseconds), now: NIODeadline.now().uptimeNanoseconds)
        }

        /// Runs what is due; returns whether timers remain.
        fileprivate func tick() -> Bool {
            for action in deadlines.takeDue(at: NIODeadline.now().uptimeNanoseconds) { action() }
            return deadlines.count > 0
        }
    }

    private let ticker: PerLoopTicker<Wheel>

    /// A wheel and its tick on every loop of `group`.
    init(group: any EventLoopGroup) {
        ticker = PerLoopTicker(group: group, every: Self.resolution, make: { Wheel() }, tick: { $0.tick() })
    }

    /// Runs `action` on `eventLoop` once `delay` has passed (up to ``resolution`` later) unless
    /// the timer is cancelled first. Call on `eventLoop`. (A loop outside the relay's group gets a
    /// SwiftNIO scheduled task.)
    func schedule(on eventLoop: any EventLoop, in delay: TimeAmount, _ action: @escaping () -> Void) -> RelayTimer {
        guard let wheel = ticker.box(on: eventLoop) else {
            let task = NIOLoopBound(action, eventLoop: eventLoop)
            return RelayTimer(.scheduled(eventLoop.scheduleTask(in: delay) { task.value() }))
        }
        let deadline = NIODeadline.now().uptimeNanoseconds + UInt64(max(delay.nanoseconds, 0))
        let handle = wheel.value.deadlines.add(action, deadline: deadline)
        ticker.wake(on: eventLoop)
        return RelayTimer(.wheel(wheel, handle))
    }

    /// Timers waiting on `eventLoop`'s wheel (tests). Call on `eventLoop`.
    func waitingCount(on eventLoop: any EventLoop) -> Int {
        ticker.box(on: eventLoop)?.value.deadlines.count ?? 0
    }

    /// Whether a wheel is being ticked (tests): only while it holds a timer, and until the tick
    /// after the last one fired or was cancelled.
    var isTicking: Bool { ticker.isTicking }

    /// Stops the ticks (at shutdown, once every connection is closed).
    func stop() {
        ticker.stop()
    }
}

/// A timer of ``RelayTimers``.
struct RelayTimer: Sendable {
    fileprivate enum Kind: Sendable {
        case wheel(NIOLoopBoundBox<RelayTimers.Wheel>, DeadlineWheel<() -> Void>.Handle)
        case scheduled(Scheduled<Void>)
    }

    private let kind: Kind

    fileprivate init(_ kind: Kind) { self.kind = kind }

    /// Stops the timer if it has not fired; callable from any thread.
    func cancel() {
        switch kind {
        case .scheduled(let task):
            task.cancel()
        case .wheel(let wheel, let handle):
            if wheel.eventLoop.inEventLoop {
                wheel.value.deadlines.cancel(handle)
            } else {
                wheel.eventLoop.execute { wheel.value.deadlines.cancel(handle) }
            }
        }
    }
}
