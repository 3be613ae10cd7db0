import HybridDeadline
import Synchronization
import TestManualClock
import Testing

/// `withDeadline` and `withTimeLimit` on a manual clock: no test waits on real time.
@Suite struct DeadlineTests {
    /// What a channel's reader waits on: it ends only when closed (as a blocked read does).
    final class Channel: Sendable {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        private let closes = Mutex(0)
        func close() {
            closes.withLock { $0 += 1 }
            continuation.finish()
        }
        var closeCount: Int { closes.withLock { $0 } }
        func read() async { for await _ in stream {} }
    }

    struct Refused: Error, Equatable {}

    @Test("a body blocked on its channel returns once the deadline passes and onExpiry closes it")
    func expiryEndsTheBody() async {
        let clock = ManualClock()
        let channel = Channel()
        async let outcome = withDeadline(after: .seconds(5), on: clock, onExpiry: { channel.close() }) {
            await channel.read()
            return "read ended"
        }
        await clock.sleeperArrived()
        clock.advance(by: .seconds(4))
        #expect(channel.closeCount == 0)
        clock.advance(by: .seconds(1))
        let (result, expired) = await outcome
        #expect(result == "read ended" && expired)
        #expect(channel.closeCount == 1)
    }

    @Test("a body that returns first leaves no timer behind: onExpiry never runs, even later")
    func bodyFirstCancelsTheTimer() async throws {
        let clock = ManualClock()
        let channel = Channel()
        let (result, expired) = try await withDeadline(
            clock.now.advanced(by: .seconds(5)), on: clock, onExpiry: { channel.close() }
        ) { () throws(Refused) -> Int in 7 }
        #expect(result == 7 && !expired)
        clock.advance(by: .seconds(60))
        #expect(channel.closeCount == 0)
    }

    @Test("what the body throws is thrown, typed; no deadline runs the body alone")
    func errorsAndNoDeadline() async {
        let clock = ManualClock()
        await #expect(throws: Refused()) {
            try await withDeadline(after: .seconds(1), on: clock, onExpiry: {}) { () throws(Refused) in throw Refused()
            }
        }
        let (result, expired) = await withDeadline(nil, on: clock, onExpiry: { Issue.record("no deadline") }) {
            "ran"
        }
        #expect(result == "ran" && !expired)
    }

    @Test("withTimeLimit cancels a body past the limit and throws the error given")
    func timeLimitCancels() async {
        let clock = ManualClock()
        let cancelled = Mutex(false)
        let run = Task {
            try await withTimeLimit(.seconds(3), on: clock, throwing: Refused()) {
                await withTaskCancellationHandler {
                    await Channel().read()
                } onCancel: {
                    cancelled.withLock { $0 = true }
                }
            }
        }
        await clock.sleeperArrived()
        clock.advance(by: .seconds(3))
        await #expect(throws: Refused()) { try await run.value }
        #expect(cancelled.withLock { $0 })
    }

    @Test("withTimeLimit returns the body's result when it comes first, and nil means no limit")
    func timeLimitResult() async throws {
        let clock = ManualClock()
        #expect(try await withTimeLimit(.seconds(3), on: clock, throwing: Refused()) { 42 } == 42)
        #expect(try await withTimeLimit(nil, on: clock, throwing: Refused()) { 43 } == 43)
    }
}
