import NIOConcurrencyHelpers
import NIOCore

/// A phase barrier: tasks wait for a phase number; the coordinator advances it.
actor PhaseGate {
    private var phase = 0
    private var waiters: [(Int, CheckedContinuation<Void, Never>)] = []

    func wait(for target: Int) async {
        if phase >= target { return }
        await withCheckedContinuation { waiters.append((target, $0)) }
    }

    func advance(to target: Int) {
        phase = target
        let ready = waiters.filter { $0.0 <= target }
        waiters.removeAll { $0.0 <= target }
        for (_, continuation) in ready { continuation.resume() }
    }
}

/// Bounds the number of tunnel set-ups in flight.
actor SetupSlots {
    private var free: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = count }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty { free += 1 } else { waiters.removeFirst().resume() }
    }
}

/// Hands out explicit loopback source ports: 40 000 connections to one relay port need more
/// than the ~28 000 ports of the ephemeral range.
final class SourcePorts: Sendable {
    private let next: NIOLockedValueBox<Int>
    private let excluded: Set<Int>

    /// Hands out ports from `start` on (wrapping within 10 000–65 000); worker processes start
    /// at different places so that their direct-echo connections rarely collide.
    init(excluding excluded: Set<Int>, start: Int = 10_000) {
        self.excluded = excluded
        self.next = NIOLockedValueBox(10_000 + (start - 10_000) % 55_000)
    }

    func take() throws -> SocketAddress {
        let port: Int = next.withLockedValue { next in
            repeat { next = next >= 65_000 ? 10_000 : next + 1 } while excluded.contains(next)
            return next
        }
        return try SocketAddress(ipAddress: "127.0.0.1", port: port)
    }
}

/// Counters shared by the worker tunnels.
final class Counters: Sendable {
    private let state = NIOLockedValueBox((paired: 0, failed: 0, roundTrips: 0, samples: [Int]()))
    private let checks = NIOLockedValueBox((ok: 0, failed: 0))

    /// A tunnel's one-message check (``Bench/everyTunnel``) ended.
    func checked(ok: Bool) { checks.withLockedValue { ok ? ($0.ok += 1) : ($0.failed += 1) } }

    /// Tunnels whose check got their message back intact, and those whose check failed.
    var checkResults: (ok: Int, failed: Int) { checks.withLockedValue { $0 } }

    func paired() -> Int { state.withLockedValue { $0.paired += 1; return $0.paired } }
    func failed() { state.withLockedValue { $0.failed += 1 } }
    func roundTrips(_ count: Int) { state.withLockedValue { $0.roundTrips += count } }
    func samples(_ values: [Int]) { state.withLockedValue { $0.samples += values } }

    var snapshot: (paired: Int, failed: Int, roundTrips: Int) {
        state.withLockedValue { ($0.paired, $0.failed, $0.roundTrips) }
    }

    /// Returns the latency samples (ns) and clears them and the round-trip count.
    func takeResults() -> (roundTrips: Int, samples: [Int]) {
        state.withLockedValue { state in
            defer {
                state.roundTrips = 0
                state.samples = []
            }
            return (state.roundTrips, state.samples)
        }
    }
}
