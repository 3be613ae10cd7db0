import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One built `tunnel-relay` binary on a loopback port that the kernel picks at its first start
/// (`--port 0`, read from its "listening on" line); later starts reuse that port, so that it can
/// be killed and started again at the same address behind HAProxy.
final class RelayInstanceProcess: @unchecked Sendable {
    let routingPrefix: UInt8
    /// 0 until the first start.
    private(set) var port = 0
    /// Seconds `/healthz` fails after SIGTERM before the listener closes (above HAProxy's
    /// time to mark an instance down, so no /cable/new meets a closed listener).
    let drainDelay: Double
    private var process: Process?

    /// HAProxy's name for this instance (deploy/haproxy.cfg).
    var serverName: String { "relay" + HAProxyProcess.slotName(routingPrefix) }

    init(routingPrefix: UInt8, drainDelay: Double = 3) {
        self.routingPrefix = routingPrefix
        self.drainDelay = drainDelay
    }

    /// Starts the binary and waits for its "listening on" line.
    func start() async throws {
        let binary = RelayCommandTests.productsDirectory.appendingPathComponent("tunnel-relay")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build tunnel-relay first")
        let process = Process()
        process.executableURL = binary
        process.arguments = [
            "--host", "127.0.0.1", "--port", String(port), "--routing-prefix", String(routingPrefix),
            "--rate-per-ip", "0", "--max-connections-per-ip", "0", "--max-pending-per-ip", "0",
            // deploy/haproxy.cfg sends a PROXY v2 header on every connection, from loopback here.
            "--proxy-protocol", "--proxy-protocol-from", "127.0.0.1/32", "--drain-delay", String(drainDelay),
            "--shutdown-grace", "60",
            "--log-level", "error",
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        self.process = process
        let line = try await RelayCommandTests.firstLine(of: output.fileHandleForReading)
        let prefix = "listening on 127.0.0.1:"
        let listening = line.flatMap { $0.hasPrefix(prefix) ? Int($0.dropFirst(prefix.count)) : nil }
        try #require(
            listening != nil && (port == 0 || listening == port), "relay \(serverName) did not start: \(line ?? "EOF")")
        if port == 0, let listening { port = listening }
    }

    /// SIGKILL: the instance vanishes without a word, as in a crash or a lost machine.
    func kill() async {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        _ = await RelayCommandTests.exitStatus(of: process)
    }

    /// SIGTERM: graceful shutdown (drain) begins.
    func terminate() {
        guard let process, process.isRunning else { return }
        process.terminate()
    }

    /// Waits for the process to exit; its exit status.
    func exitStatus() async -> Int32? {
        guard let process else { return nil }
        return await RelayCommandTests.exitStatus(of: process)
    }

    deinit {
        if let process, process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }
}
