import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HybridCore
import HybridTransport
import Logging
import NIOCore

/// Load generator for `tunnel-relay`: opens many tunnel pairs, measures relay RSS per tunnel,
/// forwarding throughput, and paced round-trip latency through the relay versus a direct echo.
@main
struct RelayBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay-bench",
        abstract: "Benchmark a tunnel-relay binary on loopback (see Benchmarks/relay-bench.sh)."
    )

    @Option(help: "The tunnel-relay binary to start.")
    var relayBinary = ".build/release/tunnel-relay"
    @Option(help: "Concurrent tunnel pairs to open.")
    var tunnels = 20_000
    @Option(help: "Tunnel set-ups in flight at once.")
    var setupConcurrency = 128
    @Option(help: "Tunnels doing round trips as fast as they can in the throughput phases.")
    var throughputTunnels = 64
    @Option(help: "Seconds per throughput phase.")
    var duration: Double = 5
    @Option(help: "Relayed frames per second in the latency phase (2 per round trip).")
    var latencyRate = 5_000
    @Option(help: "Tunnels sharing the latency-phase load.")
    var latencyTunnels = 50
    @Option(help: "The relay's --event-loops (0: one per core).")
    var relayEventLoops = 0
    @Option(help: "The relay's --ping-interval in seconds (its default is 20).")
    var relayPingInterval: Double = 20
    @Option(help: "Seconds of the latency phase.")
    var latencyDuration: Double = 10

    static let logger = Logger(label: "relay.bench", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Tunnels this process (and the relay, which inherits the limit) can hold: each tunnel is
    /// two sockets on each side, plus a margin for the listener, echo and latency connections.
    var feasibleTunnels: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return tunnels }
        let cap = (Int(limit.rlim_cur) - 200) / 2
        if cap < tunnels {
            print("fd limit \(limit.rlim_cur) allows \(cap) tunnels, not \(tunnels) (2 fds per tunnel in the relay and here)")
        }
        return min(tunnels, cap)
    }

    func run() async throws {
        let tunnels = feasibleTunnels
        let relay = try RelayProcess(binary: relayBinary, arguments: [
            "--host", "127.0.0.1", "--port", "0", "--rate-per-ip", "0", "--log-level", "error",
            "--pending-ttl", "600", "--tunnel-lifetime", "3600", "--max-messages", "1000000000",
            "--max-bytes", "1000000000000", "--max-connections", "1000000", "--max-pending", "1000000",
            "--event-loops", String(relayEventLoops), "--ping-interval", String(relayPingInterval),
        ])
        defer { relay.stop() }
        let echo = try await EchoServer.start()
        let echoPort = echo.localAddress?.port ?? 0
        let baseline = relay.residentBytes
        print("relay pid \(relay.process.processIdentifier) port \(relay.port); baseline RSS \(baseline / 1024) KiB")

        var clientConfiguration = TunnelClient.Configuration()
        clientConfiguration.connectTimeout = .seconds(30)
        clientConfiguration.handshakeTimeout = .seconds(60)
        let bench = Bench(
            relayPort: relay.port,
            sourcePorts: SourcePorts(excluding: [relay.port, echoPort]),
            configuration: clientConfiguration,
            latencyTunnels: latencyTunnels,
            throughputTunnels: throughputTunnels,
            latencyRoundTripsPerSecond: Double(latencyRate) / 2 / Double(latencyTunnels)
        )

        let setupStart = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<tunnels {
                group.addTask { await bench.holdTunnel(index) }
            }
            // Phase 1: everyone paired (or failed).
            var last = (paired: 0, failed: 0, roundTrips: 0)
            var lastReport = ContinuousClock.now
            while last.paired + last.failed < tunnels {
                try await Task.sleep(for: .milliseconds(200))
                last = bench.counters.snapshot
                if ContinuousClock.now - lastReport > .seconds(5) {
                    print("  paired \(last.paired), failed \(last.failed)")
                    lastReport = .now
                }
            }
            let setup = ContinuousClock.now - setupStart
            try await Task.sleep(for: .seconds(2))  // let allocations settle before reading RSS
            let rss = relay.residentBytes
            let paired = last.paired
            print("paired tunnels: \(paired) (failed \(last.failed)) in \(format(setup))")
            print("relay RSS: \(rss / 1024) KiB, \((rss - baseline) / max(paired, 1)) bytes per paired tunnel")

            // Phases 2 and 3: throughput with small and large messages.
            for (phase, size) in [(Bench.smallThroughput, 64), (Bench.largeThroughput, 16 * 1024)] {
                bench.messageSize = size
                await bench.advance(to: phase)
                try await Task.sleep(for: .seconds(duration))
                await bench.advance(to: phase + 1)  // stop
                try await Task.sleep(for: .milliseconds(500))
                let roundTrips = bench.counters.takeResults().roundTrips
                let frames = Double(2 * roundTrips) / duration
                print(
                    "throughput (\(size) B messages, \(throughputTunnels) tunnels): "
                        + "\(Int(frames)) relayed frames/s, \(String(format: "%.1f", frames * Double(size) / 1e6)) MB/s"
                )
            }

            // Phase 4: paced latency through the relay; phase 5: the same client against the echo.
            await bench.advance(to: Bench.relayedLatency)
            try await Task.sleep(for: .seconds(latencyDuration))
            await bench.advance(to: Bench.relayedLatency + 1)
            try await Task.sleep(for: .milliseconds(500))
            let relayed = bench.counters.takeResults()
            let direct = try await bench.directLatency(
                echoPort: echoPort, tunnels: latencyTunnels, seconds: latencyDuration
            )
            report("relayed", relayed.samples, seconds: latencyDuration)
            report("direct ", direct, seconds: latencyDuration)
            if let relayedP99 = percentile(relayed.samples, 0.99), let directP99 = percentile(direct, 0.99) {
                print("relay overhead: p99 ratio \(String(format: "%.2f", Double(relayedP99) / Double(max(directP99, 1))))")
            }
            print("relay RSS at end: \(relay.residentBytes / 1024) KiB")
            await bench.advance(to: Bench.done)
            group.cancelAll()
        }
        try? await echo.close()
    }

    func report(_ label: String, _ samples: [Int], seconds: Double) {
        guard let p50 = percentile(samples, 0.5), let p99 = percentile(samples, 0.99) else {
            print("\(label) latency: no samples")
            return
        }
        print(
            "\(label) round trip: p50 \(microseconds(p50)) µs, p99 \(microseconds(p99)) µs "
                + "(\(samples.count) round trips, \(Int(Double(samples.count) / seconds)) /s)"
        )
    }

    func percentile(_ samples: [Int], _ fraction: Double) -> Int? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    func microseconds(_ nanoseconds: Int) -> String { String(format: "%.0f", Double(nanoseconds) / 1000) }

    func format(_ duration: Duration) -> String {
        String(format: "%.1f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}
