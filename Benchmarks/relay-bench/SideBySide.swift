import Foundation

/// `relay-bench --compare`: the same load generator, frame sizes and rates against our relay
/// pairing two clients, nginx, HAProxy and a bare SwiftNIO byte forwarder (``NIOByteProxy``) each
/// proxying a WebSocket to an echo server, and the
/// echo directly. Every middlebox forwards two frames per round trip (one each way), so "frames"
/// and "CPU µs per frame" mean the same thing for all of them.
extension RelayBenchCommand {
    struct SideBySideRow {
        let name: String
        var framesPerSecond = 0.0
        var megabytesPerSecond = 0.0
        var p50Microseconds = 0.0
        var p99Microseconds = 0.0
        /// CPU of the forwarding process per 64-byte frame (nil for the direct echo: nothing forwards).
        var cpuMicrosecondsPerFrame: Double?
    }

    static let compareSizes = [64, 16 * 1024]

    func runSideBySide() async throws {
        let echo = try await EchoServer.start()
        defer { echo.close(promise: nil) }
        let echoPort = echo.localAddress?.port ?? 0
        print(
            "side by side: \(throughputTunnels) connections x \(duration) s of back-to-back round trips per size "
                + "(\(Self.compareSizes.map(String.init).joined(separator: ", ")) B); paced latency \(latencyRate) "
                + "forwarded frames/s over \(latencyTunnels) connections for \(latencyDuration) s; "
                + "\(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(Self.loadAverage)"
        )
        var rows: [SideBySideRow] = []

        // Our relay: an echoing phone on /cable/new and the client on /cable/connect.
        var relay: RelayProcess?
        defer { relay?.stop() }
        let target: (host: String, port: Int)
        let pids: [Int32]
        if let relayURL {
            target = try Self.hostAndPort(relayURL)
            pids = relayPID
        } else {
            let started = try RelayProcess(binary: relayBinary, arguments: relayArguments(prefix: 1))
            relay = started
            target = ("127.0.0.1", started.port)
            pids = [started.process.processIdentifier]
        }
        let bench = makeBench(
            relayHost: target.host, relayPort: target.port, excluding: [target.port, echoPort], sourcePortStart: 10_000,
            roundTripRate: roundTripRate
        )
        let load = LocalLoad(
            bench: bench, tunnels: throughputTunnels + latencyTunnels, echoPort: echoPort,
            latencyTunnels: latencyTunnels, progress: { _ in }
        )
        let (paired, failed) = try await load.setUp()
        guard failed == 0 else { throw BenchError.relayDidNotStart("\(failed) of \(paired + failed) tunnels failed") }
        var row = SideBySideRow(name: "tunnel-relay (pairing)")
        for (phase, size) in zip([Bench.smallThroughput, Bench.largeThroughput], Self.compareSizes) {
            let before = relayCPU(pids)
            let roundTrips = try await load.throughput(phase: phase, size: size, seconds: duration)
            record(&row, size: size, roundTrips: roundTrips, cpu: pids.isEmpty ? nil : relayCPU(pids) - before)
        }
        record(&row, latency: try await load.relayedLatency(seconds: latencyDuration))
        await load.finish()
        rows.append(row)
        relay?.stop()

        // nginx, HAProxy and a bare SwiftNIO byte forwarder (the floor under any NIO relay) in front
        // of the echo server, then the echo alone.
        for (name, start) in [
            ("nginx", { try await ProxyProcess.nginx(upstreamPort: echoPort) }),
            ("haproxy", { try await ProxyProcess.haproxy(upstreamPort: echoPort) }),
            ("nio-bytes", { try await ProxyProcess.nioBytes(upstreamPort: echoPort) }),
        ] as [(String, () async throws -> ProxyProcess)] {
            let proxy = try await start()
            defer { proxy.stop() }
            rows.append(try await measureEcho(name: "\(name) -> echo", bench: bench, port: proxy.port, cpu: { proxy.cpuSeconds }))
        }
        rows.append(try await measureEcho(name: "direct echo", bench: bench, port: echoPort, cpu: nil))
        printSideBySide(rows)
    }

    private func measureEcho(name: String, bench: Bench, port: Int, cpu: (() -> Double)?) async throws -> SideBySideRow {
        var row = SideBySideRow(name: name)
        for size in Self.compareSizes {
            let before = cpu?() ?? 0
            let roundTrips = try await bench.echoThroughput(port: port, connections: throughputTunnels, size: size, seconds: duration)
            record(&row, size: size, roundTrips: roundTrips, cpu: cpu.map { $0() - before })
        }
        record(&row, latency: try await bench.directLatency(echoPort: port, tunnels: latencyTunnels, seconds: latencyDuration))
        return row
    }

    private func record(_ row: inout SideBySideRow, size: Int, roundTrips: Int, cpu: Double?) {
        let frames = Double(2 * roundTrips) / duration
        var line = SummaryLine(phase: "compare_throughput\(size)")
        line["target"] = row.name.split(separator: " ").first.map(String.init)
        line["frames_s"] = String(Int(frames))
        line["MB_s"] = String(format: "%.1f", frames * Double(size) / 1e6)
        if let cpu { line["cpu_us_frame"] = String(format: "%.2f", 1e6 * cpu / Double(max(2 * roundTrips, 1))) }
        line.print()
        if size == 64 {
            row.framesPerSecond = frames
            row.cpuMicrosecondsPerFrame = cpu.map { 1e6 * $0 / Double(max(2 * roundTrips, 1)) }
        } else {
            row.megabytesPerSecond = frames * Double(size) / 1e6
        }
    }

    private func record(_ row: inout SideBySideRow, latency samples: [Int]) {
        guard let summary = LatencySummary(nanoseconds: samples) else { return }
        row.p50Microseconds = summary.p50Microseconds
        row.p99Microseconds = summary.p99Microseconds
        var line = SummaryLine(phase: "compare_latency")
        line["target"] = row.name.split(separator: " ").first.map(String.init)
        line["p50_us"] = String(Int(summary.p50Microseconds))
        line["p99_us"] = String(Int(summary.p99Microseconds))
        line["round_trips"] = String(summary.count)
        line.print()
    }

    /// A Markdown table: each value with its ratio to the best in its column (lower is better for
    /// latency and CPU, higher for frames/s and MB/s; the best shows 1.00).
    private func printSideBySide(_ rows: [SideBySideRow]) {
        func cell(_ value: Double?, best: Double?, format: String) -> String {
            guard let value, let best, best > 0 else { return "n/a" }
            return String(format: format, value) + String(format: " (%.2f)", value / best)
        }
        let lowestP50 = rows.map(\.p50Microseconds).filter { $0 > 0 }.min()
        let lowestP99 = rows.map(\.p99Microseconds).filter { $0 > 0 }.min()
        let highestFrames = rows.map(\.framesPerSecond).max()
        let highestMB = rows.map(\.megabytesPerSecond).max()
        let lowestCPU = rows.compactMap(\.cpuMicrosecondsPerFrame).min()
        print("| forwarder | p50 µs | p99 µs | 64 B frames/s | 16 KiB MB/s | CPU µs per 64 B frame |")
        print("|---|---|---|---|---|---|")
        for row in rows {
            print(
                "| \(row.name) | \(cell(row.p50Microseconds, best: lowestP50, format: "%.0f")) "
                    + "| \(cell(row.p99Microseconds, best: lowestP99, format: "%.0f")) "
                    + "| \(cell(row.framesPerSecond, best: highestFrames, format: "%.0f")) "
                    + "| \(cell(row.megabytesPerSecond, best: highestMB, format: "%.1f")) "
                    + "| \(cell(row.cpuMicrosecondsPerFrame, best: lowestCPU, format: "%.2f")) |"
            )
        }
        let proxies = rows.filter { $0.name.hasPrefix("nginx") || $0.name.hasPrefix("haproxy") }.compactMap(\.cpuMicrosecondsPerFrame)
        if let ours = rows.first?.cpuMicrosecondsPerFrame, let better = proxies.min() {
            print(String(format: "relay CPU per 64 B frame / better of nginx and HAProxy: %.2f (target <= 1.2)", ours / better))
            if let floor = rows.first(where: { $0.name.hasPrefix("nio-bytes") })?.cpuMicrosecondsPerFrame {
                print(String(
                    format: "SwiftNIO byte forwarder / better of nginx and HAProxy: %.2f; relay / SwiftNIO byte forwarder: %.2f",
                    floor / better, ours / floor
                ))
            }
        }
        print("host load average after: \(Self.loadAverage)")
    }
}
