import HybridTransport
import NIOConcurrencyHelpers

/// What the benchmark phases need from whoever holds the tunnels: this process (``LocalLoad``)
/// or several worker processes (``WorkerLoad``).
protocol LoadGenerator {
    /// Opens every tunnel and waits until each one paired or failed.
    func setUp() async throws -> (paired: Int, failed: Int)
    /// Every paired tunnel sends one message and checks its echo; waits up to `timeout` seconds
    /// for all of them. Returns the tunnels that got their message back intact and those that failed.
    func everyTunnel(timeout: Double) async throws -> (ok: Int, failed: Int)
    /// Round trips completed by the throughput tunnels in `phase` with `size`-byte messages.
    func throughput(phase: Int, size: Int, seconds: Double) async throws -> Int
    /// Paced round-trip durations (ns) through the relay.
    func relayedLatency(seconds: Double) async throws -> [Int]
    /// Paced round-trip durations (ns) with the same client against the direct echo.
    func directLatency(seconds: Double) async throws -> [Int]
    /// Closes every tunnel.
    func finish() async
}

/// The tunnels of one process, held by a task group in this process.
final class LocalLoad: LoadGenerator, Sendable {
    let bench: Bench
    private let tunnels: Int
    private let echoPort: Int
    private let latencyTunnels: Int
    private let progress: @Sendable (String) -> Void
    private let holder = NIOLockedValueBox<Task<Void, Never>?>(nil)

    /// - Parameter progress: receives a set-up progress line every 5 s.
    init(bench: Bench, tunnels: Int, echoPort: Int, latencyTunnels: Int, progress: @escaping @Sendable (String) -> Void) {
        self.bench = bench
        self.tunnels = tunnels
        self.echoPort = echoPort
        self.latencyTunnels = latencyTunnels
        self.progress = progress
    }

    func setUp() async throws -> (paired: Int, failed: Int) {
        let bench = self.bench
        let tunnels = self.tunnels
        holder.withLockedValue { holder in
            holder = Task {
                await withTaskGroup(of: Void.self) { group in
                    for index in 0..<tunnels {
                        group.addTask { await bench.holdTunnel(index) }
                    }
                }
            }
        }
        var last = (paired: 0, failed: 0, roundTrips: 0)
        var lastReport = ContinuousClock.now
        while last.paired + last.failed < tunnels {
            try await Task.sleep(for: .milliseconds(200))
            last = bench.counters.snapshot
            if ContinuousClock.now - lastReport > .seconds(5) {
                progress("paired \(last.paired), failed \(last.failed)")
                lastReport = .now
            }
        }
        return (last.paired, last.failed)
    }

    func everyTunnel(timeout: Double) async throws -> (ok: Int, failed: Int) {
        let paired = bench.counters.snapshot.paired
        await bench.advance(to: Bench.everyTunnel)
        let deadline = ContinuousClock.now + .seconds(timeout)
        var results = bench.counters.checkResults
        while results.ok + results.failed < paired, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            results = bench.counters.checkResults
        }
        return results
    }

    func throughput(phase: Int, size: Int, seconds: Double) async throws -> Int {
        bench.messageSize = size
        await bench.advance(to: phase)
        try await Task.sleep(for: .seconds(seconds))
        await bench.advance(to: phase + 1)  // stop
        try await Task.sleep(for: .milliseconds(500))
        return bench.counters.takeResults().roundTrips
    }

    func relayedLatency(seconds: Double) async throws -> [Int] {
        await bench.advance(to: Bench.relayedLatency)
        try await Task.sleep(for: .seconds(seconds))
        await bench.advance(to: Bench.relayedLatency + 1)
        try await Task.sleep(for: .milliseconds(500))
        return bench.counters.takeResults().samples
    }

    func directLatency(seconds: Double) async throws -> [Int] {
        guard latencyTunnels > 0 else { return [] }
        return try await bench.directLatency(echoPort: echoPort, tunnels: latencyTunnels, seconds: seconds)
    }

    func finish() async {
        await bench.advance(to: Bench.done)
        let task = holder.withLockedValue { $0 }
        await task?.value
    }
}
