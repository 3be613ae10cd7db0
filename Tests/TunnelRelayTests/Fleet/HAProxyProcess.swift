import Foundation
import TestChildProcess
import NIOCore
import NIOPosix
import Testing

/// HAProxy running the shipped deploy/haproxy.cfg in master-worker foreground mode, with its
/// runtime API on a private Unix socket so tests can read what its health checks decided.
final class HAProxyProcess: @unchecked Sendable {
    static let binary = "/usr/sbin/haproxy"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: binary) }
    static let config = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/haproxy.cfg")

    /// The instance slots deploy/haproxy.cfg names (routing prefixes 01, 02, 03).
    static let instanceCount = 3

    let frontendPort: Int
    let statsSocket: String
    private let process = Process()

    private init(frontendPort: Int, statsSocket: String) {
        self.frontendPort = frontendPort
        self.statsSocket = statsSocket
    }

    /// Starts HAProxy in front of `instancePorts` (one per slot, slot k has routing prefix k+1),
    /// waits for "Loading success." (listeners bound), runs `body`, then stops it with SIGTERM.
    static func with<Result>(
        instancePorts: [Int],
        _ body: (HAProxyProcess) async throws -> Result
    ) async throws -> Result {
        precondition(instancePorts.count == instanceCount, "deploy/haproxy.cfg has \(instanceCount) slots")
        let frontendPort = try await freePort()
        let socket = FileManager.default.temporaryDirectory
            .appendingPathComponent("haproxy-\(UUID().uuidString.prefix(8)).sock").path
        let haproxy = HAProxyProcess(frontendPort: frontendPort, statsSocket: socket)
        var environment = ProcessInfo.processInfo.environment
        environment["RELAY_FRONTEND"] = "127.0.0.1:\(frontendPort)"
        environment["RELAY_STATS_SOCKET"] = socket
        for (slot, port) in instancePorts.enumerated() {
            environment["RELAY_INSTANCE_" + slotName(UInt8(slot + 1))] = "127.0.0.1:\(port)"
        }
        let process = haproxy.process
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-W", "-db", "-f", config.path]
        process.environment = environment
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let result: Swift.Result<Result, any Error>
        do {
            let log = await readUntil("Loading success.", from: stderr.fileHandleForReading)
            try #require(log.contains("Loading success."), "haproxy did not start:\n\(log)")
            // Keep draining stderr so that HAProxy never blocks on a full pipe (a thread of its
            // own, which ends at EOF when HAProxy exits).
            let handle = UncheckedFileHandle(stderr.fileHandleForReading)
            Thread { while !handle.value.availableData.isEmpty {} }.start()
            result = .success(try await body(haproxy))
        } catch {
            result = .failure(error)
        }
        process.terminate()
        _ = await ChildProcess.exitStatus(of: process)
        try? FileManager.default.removeItem(atPath: socket)
        return try result.get()
    }

    /// A routing prefix as deploy/haproxy.cfg spells it: two lower-case hex digits.
    static func slotName(_ prefix: UInt8) -> String {
        let hex = String(prefix, radix: 16)
        return hex.count == 1 ? "0" + hex : hex
    }

    /// `srv_op_state` of every server of `backend`, by server name (0 down, 2 up; 1 and 3 are
    /// transitions), from the runtime API's `show servers state`.
    func serverStates(backend: String) async throws -> [String: Int] {
        let text = try await command("show servers state \(backend)")
        var states: [String: Int] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: " ")
            // be_id be_name srv_id srv_name srv_addr srv_op_state …
            guard fields.count > 5, fields[1] == backend, let state = Int(fields[5]) else { continue }
            states[String(fields[3])] = state
        }
        return states
    }

    /// Waits until HAProxy's checks put `server` of `backend` in `state` (0 down, 2 up), polling
    /// the runtime API; `deadline` only bounds a hang, it is not a timing assertion.
    func waitFor(
        _ server: String, in backend: String = "relays_any", state: Int, deadline: Duration = .seconds(60)
    ) async throws {
        let clock = ContinuousClock()
        let end = clock.now + deadline
        while try await serverStates(backend: backend)[server] != state {
            guard clock.now < end else {
                Issue.record("\(backend)/\(server) never reached state \(state)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Sends one runtime-API command and reads the answer (HAProxy closes after it).
    func command(_ line: String) async throws -> String {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(unixDomainSocketPath: statsSocket) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: line + "\n"))
            var text = ""
            for try await chunk in inbound { text += String(buffer: chunk) }
            return text
        }
    }

    /// A port that was free a moment ago (HAProxy and restarted instances need fixed ports).
    static func freePort() async throws -> Int {
        let probe = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = probe.localAddress?.port ?? 0
        try await probe.close()
        return port
    }

    static func readUntil(_ marker: String, from handle: FileHandle) async -> String {
        let handle = UncheckedFileHandle(handle)
        return await ChildProcess.offPool {
            var text = ""
            while !text.contains(marker) {
                let chunk = handle.value.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
    }
}
