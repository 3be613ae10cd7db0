import Foundation
import HAProxySupport
import TestChildProcess
import Testing

/// HAProxy running the shipped deploy/haproxy.cfg in master-worker foreground mode, with its
/// runtime API on a private Unix socket so tests can read what its health checks decided. Its
/// frontend is a socket bound here and inherited as its standard input (`RELAY_FRONTEND=fd@0`):
/// the port is held from the moment the kernel picks it, so no other process can take it
/// before HAProxy listens.
final class HAProxyProcess: @unchecked Sendable {
    static let binary = "/usr/sbin/haproxy"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: binary) }
    static let config = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/haproxy.cfg")

    /// The instance slots deploy/haproxy.cfg names (routing prefixes 01, 02, 03).
    static let instanceCount = 3

    let frontendPort: Int
    let runtimeAPI: HAProxyRuntimeAPI
    /// What HAProxy prints on stderr (server state changes among it).
    let log = HAProxyLog()
    private let process = Process()

    private init(frontendPort: Int, statsSocket: String) {
        self.frontendPort = frontendPort
        self.runtimeAPI = HAProxyRuntimeAPI(socketPath: statsSocket)
    }

    /// Starts HAProxy in front of `instancePorts` (one per slot, slot k has routing prefix k+1),
    /// waits for "Loading success." (listeners bound), runs `body`, then stops it with SIGTERM.
    static func with<Result>(
        instancePorts: [Int],
        _ body: (HAProxyProcess) async throws -> Result
    ) async throws -> Result {
        precondition(instancePorts.count == instanceCount, "deploy/haproxy.cfg has \(instanceCount) slots")
        let frontend = try InheritedListener()
        let socket = FileManager.default.temporaryDirectory
            .appendingPathComponent("haproxy-\(UUID().uuidString.prefix(8)).sock").path
        let haproxy = HAProxyProcess(frontendPort: frontend.port, statsSocket: socket)
        var environment = ProcessInfo.processInfo.environment
        environment["RELAY_FRONTEND"] = "fd@0"
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
        process.standardInput = FileHandle(fileDescriptor: frontend.descriptor, closeOnDealloc: false)
        defer { frontend.close() }
        try process.run()
        frontend.close()
        let result: Swift.Result<Result, any Error>
        do {
            let startup = await readUntil("Loading success.", from: stderr.fileHandleForReading)
            try #require(startup.contains("Loading success."), "haproxy did not start:\n\(startup)")
            haproxy.log.append(startup)
            // Keep draining stderr into the log, so that HAProxy never blocks on a full pipe and
            // waits see its announcements (a thread of its own, which ends at EOF when HAProxy exits).
            let handle = UncheckedFileHandle(stderr.fileHandleForReading)
            let log = haproxy.log
            Thread {
                while case let chunk = handle.value.availableData, !chunk.isEmpty {
                    log.append(String(decoding: chunk, as: UTF8.self))
                }
                log.end()
            }.start()
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

    /// Waits until HAProxy's checks put `server` of `backend` in `state` (`.up` or `.down`): its
    /// state now from the runtime API, else the line HAProxy prints when the state changes.
    /// Marking the log before asking means no change between the two is missed.
    func waitFor(_ server: String, in backend: String = "relays_any", state: HAProxyRuntimeAPI.ServerState) async throws
    {
        precondition(state == .up || state == .down, "HAProxy announces only UP and DOWN")
        let mark = log.count
        if try await runtimeAPI.serverStates(backend: backend)[server] == state { return }
        let announcement = "Server \(backend)/\(server) is \(state == .up ? "UP" : "DOWN")"
        guard try await log.waitForLine(after: mark, where: { $0.contains(announcement) }) else {
            throw HAProxyRuntimeAPI.StateNotReached(backend: backend, server: server, state: state)
        }
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
