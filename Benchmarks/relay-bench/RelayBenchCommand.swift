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
    @Option(help: "Seconds to wait for every tunnel's one-message check (each tunnel: one frame each way).")
    var everyTunnelTimeout: Double = 300

    @Option(help: ArgumentHelp(
        "Relay instances (tunnel-relay processes with routing prefixes 01, 02, …), each loaded by its own "
            + "worker process: one process may not hold more descriptors than the hard fd limit."
    ))
    var instances = 1

    @Option(help: ArgumentHelp(
        "Benchmark an already-running relay that speaks /cable/new and /cable/connect (ws://127.0.0.1:PORT; "
            + "the load generator binds loopback source ports) instead of starting tunnel-relay."
    ))
    var relayURL: String?
    @Option(help: "With --relay-url: process IDs of that relay, for its CPU time and RSS (repeatable).")
    var relayPID: [Int32] = []
    @Flag(name: .customLong("via-haproxy"), help: "Drive the load through HAProxy running --haproxy-config in front of the relay instances.")
    var viaHAProxy = false
    @Option(help: "The HAProxy configuration for --via-haproxy.")
    var haproxyConfig = "deploy/haproxy.cfg"
    @Flag(help: ArgumentHelp(
        "Side by side with the same load: our relay pairing two clients, nginx and HAProxy proxying a "
            + "WebSocket to an echo server, and the direct echo; prints ratios to the best."
    ))
    var compare = false

    @Flag(help: ArgumentHelp(
        "Fault run: 3 relay instances behind HAProxy (--haproxy-config) under a steady ceremony load; SIGKILL one, "
            + "restart it; prints failed ceremonies, the time to recover, and HAProxy's own DOWN/UP detection times."
    ))
    var faultRun = false
    @Option(help: "Fault run: concurrent ceremony loops.")
    var faultWorkers = 6
    @Option(help: "Fault run: seconds of steady load before the kill and after the restarted instance is back.")
    var faultSteady: Double = 5
    @Option(help: "Fault run: seconds from the kill to the restart.")
    var faultDown: Double = 10

    @Option(help: ArgumentHelp(
        "Byte-proxy mode (for --compare): a SwiftNIO byte forwarder to 127.0.0.1:PORT on the listening socket "
            + "given as standard input.", visibility: .hidden
    ))
    var byteProxyUpstream: Int?

    @Option(help: ArgumentHelp("Worker mode: the relay port to load.", visibility: .hidden))
    var workerRelayPort: Int?
    @Option(help: ArgumentHelp("Worker mode: the echo server's port.", visibility: .hidden))
    var workerEchoPort = 0
    @Option(help: ArgumentHelp("Worker mode: this worker's number.", visibility: .hidden))
    var workerIndex = 0
    @Option(help: ArgumentHelp("Worker mode: round trips per second per latency tunnel.", visibility: .hidden))
    var workerRoundTripRate: Double = 50

    static let logger = Logger(label: "relay.bench", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Tunnels one process (a relay, or the load generator) can hold under the fd limit: each
    /// tunnel is two sockets on each side, plus a margin for the listener, echo and latency
    /// connections.
    static var fdTunnelCap: (cap: Int, limit: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (Int.max, 0) }
        return ((Int(limit.rlim_cur) - 200) / 2, Int(limit.rlim_cur))
    }

    /// Round trips per second of each latency tunnel so that all of them relay `latencyRate` frames/s.
    var roundTripRate: Double { Double(latencyRate) / 2 / Double(max(latencyTunnels, 1)) }

    func makeBench(
        relayHost: String = "127.0.0.1", relayPort: Int, excluding: Set<Int>, sourcePortStart: Int, roundTripRate: Double
    ) -> Bench {
        var clientConfiguration = TunnelClient.Configuration()
        clientConfiguration.connectTimeout = .seconds(30)
        clientConfiguration.handshakeTimeout = .seconds(60)
        return Bench(
            relayHost: relayHost,
            relayPort: relayPort,
            sourcePorts: SourcePorts(excluding: excluding, start: sourcePortStart),
            configuration: clientConfiguration,
            setupConcurrency: setupConcurrency,
            latencyTunnels: latencyTunnels,
            throughputTunnels: throughputTunnels,
            latencyRoundTripsPerSecond: roundTripRate
        )
    }

    /// A relay instance's flags; behind deploy/haproxy.cfg (`behindHAProxy`) it reads the PROXY
    /// v2 header HAProxy sends (`send-proxy-v2`), believed from HAProxy on loopback only.
    func relayArguments(prefix: Int, port: Int = 0, behindHAProxy: Bool = false) -> [String] {
        (behindHAProxy ? ["--proxy-protocol", "--proxy-protocol-from", "127.0.0.1/32"] : []) + [
            "--host", "127.0.0.1", "--port", String(port), "--rate-per-ip", "0", "--log-level", "error",
            "--pending-ttl", "600", "--tunnel-lifetime", "3600", "--max-messages", "1000000000",
            "--max-bytes", "1000000000000", "--max-connections", "1000000", "--max-pending", "1000000",
            // The load comes from one address: no per-address caps (they would stop it at 1/16 of the fds).
            "--max-connections-per-ip", "0", "--max-pending-per-ip", "0",
            "--event-loops", String(relayEventLoops), "--ping-interval", String(relayPingInterval),
            "--routing-prefix", String(prefix),
        ]
    }

    func run() async throws {
        if let byteProxyUpstream { try await NIOByteProxy.serve(upstreamPort: byteProxyUpstream) }
        if let workerRelayPort {
            let index = workerIndex
            let bench = makeBench(
                relayPort: workerRelayPort, excluding: [workerRelayPort, workerEchoPort],
                sourcePortStart: 10_000 + index * 7_919, roundTripRate: workerRoundTripRate
            )
            let load = LocalLoad(
                bench: bench, tunnels: tunnels, echoPort: workerEchoPort, latencyTunnels: latencyTunnels,
                progress: { LineStream.write("progress \($0)", to: .standardOutput) }
            )
            try await WorkerMain.serve(load)
            return
        }
        guard instances >= 1 else { throw ValidationError("--instances must be 1 or more") }
        if compare {
            try await runSideBySide()
            return
        }
        if faultRun {
            try await runFaultRun()
            return
        }
        let (cap, fdLimit) = Self.fdTunnelCap
        let perInstance = WorkerShare.split(tunnels, into: instances)
        var shares = perInstance.map { min($0, cap) }
        if shares != perInstance {
            let needed = (tunnels + cap - 1) / max(cap, 1)
            print(
                "fd limit \(fdLimit) allows \(cap) tunnels per process (2 fds per tunnel in the relay and 2 in "
                    + "the load generator), not \(perInstance[0]): capped; --instances \(needed) would fit \(tunnels)"
            )
        }
        var relays: [RelayProcess] = []
        var balancer: ProxyProcess?
        defer {
            balancer?.stop()
            for relay in relays { relay.stop() }
        }
        // Where each instance's share of the load goes, and which processes are "the relay".
        var targets: [(host: String, port: Int)] = []
        var relayPIDs: [Int32] = []
        if let relayURL {
            guard instances == 1, !viaHAProxy else { throw ValidationError("--relay-url takes one relay, not --instances or --via-haproxy") }
            targets = [try Self.hostAndPort(relayURL)]
            relayPIDs = relayPID
            print("relay under test: \(relayURL)\(relayPID.isEmpty ? " (no --relay-pid: no CPU or RSS figures)" : ", pids \(relayPID)")")
        } else {
            for index in 0..<instances {
                relays.append(try RelayProcess(binary: relayBinary, arguments: relayArguments(prefix: index + 1, behindHAProxy: viaHAProxy)))
            }
            targets = relays.map { (host: "127.0.0.1", port: $0.port) }
            relayPIDs = relays.map(\.process.processIdentifier)
        }
        if viaHAProxy {
            let proxy = try await ProxyProcess.fleetBalancer(config: haproxyConfig, instancePorts: relays.map(\.port))
            balancer = proxy
            targets = targets.map { _ in (host: "127.0.0.1", port: proxy.port) }
            print(
                "via HAProxy (\(haproxyConfig)) on port \(proxy.port), pid \(proxy.process.processIdentifier): every "
                    + "tunnel's two connections cross it (its global maxconn 9800 bounds it to ~4 900 tunnels)"
            )
        }
        let echo = try await EchoServer.start()
        let echoPort = echo.localAddress?.port ?? 0
        let baselines = relayPIDs.map(RelayProcess.residentBytes(of:))
        if instances > 1 {
            print(
                "deployment: \(instances) tunnel-relay processes (routing prefixes 01…\(String(format: "%02x", instances))) "
                    + "and \(instances) load-generator worker processes, one per instance, because no process may hold "
                    + "more than \(fdLimit) descriptors here (hard RLIMIT_NOFILE) and each tunnel costs 2 in the relay "
                    + "and 2 in the load generator. "
                    + (viaHAProxy ? "Workers connect through HAProxy." : "Workers connect to their instance directly (no balancer in the path).")
            )
        }
        for (index, relay) in relays.enumerated() {
            print("relay \(index) pid \(relay.process.processIdentifier) port \(relay.port); baseline RSS \(baselines[index] / 1024) KiB")
        }

        let load: any LoadGenerator
        var workerLoad: WorkerLoad?
        if instances == 1 {
            let bench = makeBench(
                relayHost: targets[0].host, relayPort: targets[0].port, excluding: [targets[0].port, echoPort],
                sourcePortStart: 10_000, roundTripRate: roundTripRate
            )
            load = LocalLoad(
                bench: bench, tunnels: shares[0], echoPort: echoPort, latencyTunnels: latencyTunnels,
                progress: { print("  \($0)") }
            )
        } else {
            let throughputShares = WorkerShare.split(throughputTunnels, into: instances)
            let latencyShares = WorkerShare.split(latencyTunnels, into: instances)
            shares = shares.enumerated().map { max($1, throughputShares[$0] + latencyShares[$0]) }
            let workers = try WorkerLoad(
                executable: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
                shares: targets.indices.map {
                    WorkerShare(
                        index: $0, relayPort: targets[$0].port, tunnels: shares[$0],
                        throughputTunnels: throughputShares[$0], latencyTunnels: latencyShares[$0]
                    )
                },
                echoPort: echoPort,
                arguments: ["--setup-concurrency", String(setupConcurrency), "--worker-round-trip-rate", String(roundTripRate)]
            )
            workerLoad = workers
            load = workers
        }

        let setupStart = ContinuousClock.now
        let (paired, failed) = try await load.setUp()
        let setup = ContinuousClock.now - setupStart
        try await Task.sleep(for: .seconds(2))  // let allocations settle before reading RSS
        let rss = relayPIDs.map(RelayProcess.residentBytes(of:))
        print("paired tunnels: \(paired) (failed \(failed)) in \(format(setup))\(instances > 1 ? " across \(instances) relay processes" : "")")
        let pairedPerInstance = workerLoad?.pairedPerWorker ?? [paired]
        for index in relayPIDs.indices {
            let perTunnel = (rss[index] - baselines[index]) / max(pairedPerInstance[index], 1)
            print(
                "relay \(instances > 1 ? "\(index) " : "")RSS: \(rss[index] / 1024) KiB, \(perTunnel) bytes per paired tunnel"
                    + (instances > 1 ? " (\(pairedPerInstance[index]) tunnels)" : "")
            )
        }
        if instances > 1 {
            let grown = zip(rss, baselines).reduce(0) { $0 + $1.0 - $1.1 }
            print("relays together: \(rss.reduce(0, +) / 1024) KiB, \(grown / max(paired, 1)) bytes per paired tunnel above the baselines")
            let workerRSS = (workerLoad?.processIdentifiers ?? []).map(RelayProcess.residentBytes(of:))
            print("load-generator workers: \(workerRSS.map { "\($0 / 1024) KiB" }.joined(separator: ", "))")
        }

        // Phase 1: one message each way on every tunnel, checked.
        let checkStart = ContinuousClock.now
        let checks = try await load.everyTunnel(timeout: everyTunnelTimeout)
        let unanswered = paired - checks.ok - checks.failed
        print(
            "every tunnel: \(checks.ok) of \(paired) paired tunnels sent a message and got it back intact through the relay "
                + "(\(checks.failed) failed, \(unanswered) unanswered after \(format(ContinuousClock.now - checkStart)))"
        )
        var checkLine = SummaryLine(phase: "every_tunnel")
        checkLine["tunnels"] = String(paired)
        checkLine["ok"] = String(checks.ok)
        checkLine["failed"] = String(checks.failed + unanswered)
        checkLine.print()

        // Phases 2 and 3: throughput with small and large messages.
        for (phase, size) in [(Bench.smallThroughput, 64), (Bench.largeThroughput, 16 * 1024)] {
            let cpu = relayCPU(relayPIDs)
            let balancerCPU = balancer?.cpuSeconds ?? 0
            let roundTrips = try await load.throughput(phase: phase, size: size, seconds: duration)
            let frames = Double(2 * roundTrips) / duration
            let used = relayCPU(relayPIDs) - cpu
            print(
                "throughput (\(size) B messages, \(throughputTunnels) tunnels): "
                    + "\(Int(frames)) relayed frames/s, \(String(format: "%.1f", frames * Double(size) / 1e6)) MB/s; "
                    + cpuReport(used, seconds: duration + 0.5, frames: 2 * roundTrips)
            )
            var summary = SummaryLine(phase: "throughput\(size)")
            summary["frames_s"] = String(Int(frames))
            summary["MB_s"] = String(format: "%.1f", frames * Double(size) / 1e6)
            if !relayPIDs.isEmpty { summary["relay_cpu_us_frame"] = String(format: "%.2f", 1e6 * used / Double(max(2 * roundTrips, 1))) }
            if let balancer {
                let balancerUsed = balancer.cpuSeconds - balancerCPU
                summary["haproxy_cpu_us_frame"] = String(format: "%.2f", 1e6 * balancerUsed / Double(max(2 * roundTrips, 1)))
            }
            summary.print()
        }

        // Phase 4: paced latency through the relay; phase 5: the same client against the echo.
        print(
            "latency: \(latencyRate) relayed frames/s over \(latencyTunnels) tunnels while \(paired) tunnels are open "
                + "(host load average \(Self.loadAverage), \(ProcessInfo.processInfo.activeProcessorCount) cores)"
        )
        let cpu = relayCPU(relayPIDs)
        let relayed = try await load.relayedLatency(seconds: latencyDuration)
        let latencyCPU = relayCPU(relayPIDs) - cpu
        let direct = try await load.directLatency(seconds: latencyDuration)
        report("relayed", relayed, seconds: latencyDuration)
        report("direct ", direct, seconds: latencyDuration)
        print("relay during the latency phase: " + cpuReport(latencyCPU, seconds: latencyDuration + 0.5, frames: 2 * relayed.count))
        let relayedSummary = LatencySummary(nanoseconds: relayed)
        let directSummary = LatencySummary(nanoseconds: direct)
        if let relayedSummary, let directSummary {
            print("relay overhead: p99 ratio \(String(format: "%.2f", relayedSummary.p99Microseconds / max(directSummary.p99Microseconds, 1)))")
        }
        for (label, summary) in [("latency_relayed", relayedSummary), ("latency_direct", directSummary)] {
            guard let summary else { continue }
            var line = SummaryLine(phase: label)
            line["p50_us"] = String(Int(summary.p50Microseconds))
            line["p99_us"] = String(Int(summary.p99Microseconds))
            line["round_trips"] = String(summary.count)
            line.print()
        }
        var setupLine = SummaryLine(phase: "tunnels")
        setupLine["paired"] = String(paired)
        setupLine["failed"] = String(failed)
        if !relayPIDs.isEmpty {
            let grown = zip(rss, baselines).reduce(0) { $0 + $1.0 - $1.1 }
            setupLine["rss_bytes_per_tunnel"] = String(grown / max(paired, 1))
        }
        setupLine.print()
        print("host load average after: \(Self.loadAverage)")
        print("relay RSS at end: \(relayPIDs.map { "\(RelayProcess.residentBytes(of: $0) / 1024) KiB" }.joined(separator: ", "))")
        await load.finish()
        try? await echo.close()
    }

    /// CPU seconds used so far by all relay processes.
    func relayCPU(_ pids: [Int32]) -> Double {
        pids.reduce(0) { $0 + RelayProcess.cpuSeconds(of: $1) }
    }

    /// Host and port of a ws:// URL.
    static func hostAndPort(_ url: String) throws -> (host: String, port: Int) {
        guard let match = url.firstMatch(of: /^ws:\/\/([^\/:]+):(\d+)\/?$/), let port = Int(match.2) else {
            throw ValidationError("--relay-url must look like ws://127.0.0.1:8080")
        }
        return (String(match.1), port)
    }

    /// Relay CPU use over a phase: share of one core and microseconds per relayed frame.
    func cpuReport(_ seconds: Double, seconds wall: Double, frames: Int) -> String {
        String(format: "relay CPU %.0f%% of a core, %.1f µs per frame", 100 * seconds / wall, 1e6 * seconds / Double(max(frames, 1)))
    }

    /// The 1, 5 and 15 minute load averages: other work on the machine shows in the latencies.
    static var loadAverage: String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    func report(_ label: String, _ samples: [Int], seconds: Double) {
        guard let summary = LatencySummary(nanoseconds: samples) else {
            print("\(label) latency: no samples")
            return
        }
        print(
            "\(label) round trip: p50 \(Int(summary.p50Microseconds)) µs, p99 \(Int(summary.p99Microseconds)) µs "
                + "(\(samples.count) round trips, \(Int(Double(samples.count) / seconds)) /s)"
        )
    }

    func format(_ duration: Duration) -> String {
        String(format: "%.1f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}
