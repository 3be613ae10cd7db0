import Testing

/// The stderr log that fleet tests wait on: lines split across reads, marks, the end of the
/// stream and cancellation.
@Suite(.timeLimit(.minutes(5)))
struct HAProxyLogTests {
    static let down = "Server relays_any/relay02 is DOWN"

    @Test func lineSplitAcrossReadsWakesTheWaiter() async throws {
        let log = HAProxyLog()
        let waiter = Task { try await log.waitForLine(after: 0) { $0.contains(Self.down) } }
        log.append("[NOTICE] Loading success.\n[WARNING]  (7) : Server relays_any/re")
        log.append("lay02 is DOWN, reason: Layer4 connection problem\n")
        #expect(try await waiter.value)
    }

    /// A line before the mark is an older change: it does not count.
    @Test func linesBeforeTheMarkDoNotCount() async throws {
        let log = HAProxyLog()
        log.append(Self.down + "\n")
        let mark = log.count
        #expect(mark == 1)
        let waiter = Task { try await log.waitForLine(after: mark) { $0.contains(Self.down) } }
        log.append("Server relays_any/relay02 is UP\n")
        log.end()
        #expect(try await waiter.value == false)
    }

    @Test func cancellationEndsTheWait() async {
        let log = HAProxyLog()
        let waiter = Task { try await log.waitForLine(after: 0) { $0.contains(Self.down) } }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }
}
