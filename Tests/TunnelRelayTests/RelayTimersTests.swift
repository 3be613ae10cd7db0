import NIOCore
import NIOPosix
import Testing

@testable import TunnelRelay

/// ``RelayTimers`` as the relay drives it: a timer fires on its loop, a cancelled one never fires,
/// cancelling works from another thread, and a loop outside the relay's group still gets its
/// timers (as SwiftNIO tasks). No test sleeps: each waits for a timer that must fire after the ones
/// it checks (the wheel hands out in deadline order), and every cancel that races a deadline is
/// made on the loop in the same task that scheduled the timer.
struct RelayTimersTests {
    /// Schedules `delays` (ms) on `loop` and cancels those at `cancelled` on the loop right after;
    /// returns the indices that fired by the time the last one (never cancelled) fired.
    static func fired(
        on loop: any EventLoop, timers: RelayTimers, delays: [Int64], cancelled: Set<Int>
    ) async throws -> [Int] {
        let last = loop.makePromise(of: Void.self)
        let order = try await loop.submit {
            let order = NIOLoopBoundBox([Int](), eventLoop: loop)
            var handles: [RelayTimer] = []
            for (index, delay) in delays.enumerated() {
                handles.append(
                    timers.schedule(on: loop, in: .milliseconds(delay)) {
                        order.value.append(index)
                        if index == delays.count - 1 { last.succeed() }
                    })
            }
            for index in cancelled { handles[index].cancel() }
            return order
        }.get()
        try await last.futureResult.get()
        return try await loop.submit { order.value }.get()
    }

    /// Runs `body` with a one-loop group and timers for it, then stops both.
    static func withTimers(_ body: (any EventLoopGroup, RelayTimers) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let timers = RelayTimers(group: group)
        var failure: (any Error)?
        do { try await body(group, timers) } catch { failure = error }
        timers.stop()
        try await group.shutdownGracefully()
        if let failure { throw failure }
    }

    /// A wheel without timers is not ticked (an idle relay sleeps); a timer starts the ticks, and
    /// the tick that finds the wheel empty stops them, also when the other timers were cancelled.
    @Test func theWheelIsTickedOnlyWhileItHoldsATimer() async throws {
        try await Self.withTimers { group, timers in
            let loop = group.next()
            #expect(try await loop.submit { timers.isTicking }.get() == false)
            let far = try await loop.submit {
                let far = timers.schedule(on: loop, in: .hours(1)) {}
                #expect(timers.isTicking)
                return far
            }.get()
            far.cancel()
            // The tick that fires this one finds the wheel empty (the hour-long timer is gone).
            #expect(try await Self.fired(on: loop, timers: timers, delays: [0], cancelled: []) == [0])
            #expect(try await loop.submit { timers.isTicking }.get() == false)
            // And a new timer starts them again.
            #expect(try await Self.fired(on: loop, timers: timers, delays: [10, 30], cancelled: []) == [0, 1])
            #expect(try await loop.submit { timers.isTicking }.get() == false)
        }
    }

    @Test func cancelledTimersNeverFire() async throws {
        try await Self.withTimers { group, timers in
            let fired = try await Self.fired(
                on: group.next(), timers: timers, delays: [0, 20, 40, 100], cancelled: [1, 2])
            #expect(fired == [0, 3])
        }
    }

    /// A cancel from another thread reaches the loop before anything submitted after it (no
    /// timing involved: the timers are an hour away).
    @Test func aCancelFromAnotherThreadRemovesTheTimer() async throws {
        try await Self.withTimers { group, timers in
            let loop = group.next()
            let handles = try await loop.submit {
                (0..<3).map { _ in timers.schedule(on: loop, in: .hours(1)) {} }
            }.get()
            handles[1].cancel()
            #expect(try await loop.submit { timers.waitingCount(on: loop) }.get() == 2)
            handles[0].cancel()
            handles[1].cancel()
            #expect(try await loop.submit { timers.waitingCount(on: loop) }.get() == 1)
        }
    }

    /// A loop the timers were not made for gets SwiftNIO scheduled tasks: they fire and cancel too.
    @Test func aLoopOutsideTheGroupStillGetsItsTimers() async throws {
        try await Self.withTimers { _, timers in
            let other = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            var fired: [Int] = []
            var failure: (any Error)?
            do {
                fired = try await Self.fired(on: other.next(), timers: timers, delays: [0, 10, 100], cancelled: [1])
            } catch { failure = error }
            try await other.shutdownGracefully()
            if let failure { throw failure }
            #expect(fired == [0, 2])
        }
    }

    /// A timer never fires before its delay (measured on the loop's clock).
    @Test func neverEarly() async throws {
        try await Self.withTimers { group, timers in
            try await Self.firesNoEarlierThanItsDelay(on: group.next(), timers: timers)
        }
    }

    static func firesNoEarlierThanItsDelay(on loop: any EventLoop, timers: RelayTimers) async throws {
        let firedAt = loop.makePromise(of: NIODeadline.self)
        let scheduledAt = try await loop.submit {
            let start = NIODeadline.now()
            _ = timers.schedule(on: loop, in: .milliseconds(120)) { firedAt.succeed(.now()) }
            return start
        }.get()
        let elapsed = try await firedAt.futureResult.get() - scheduledAt
        #expect(elapsed >= .milliseconds(120))
    }
}
