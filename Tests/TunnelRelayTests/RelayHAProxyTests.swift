import Foundation
import HybridCore
import HybridTransport
import NIOCore
import NIOPosix
import Testing
@testable import TunnelRelay

/// Two relay instances behind HAProxy running the shipped deploy/haproxy.cfg: tunnels whose two
/// ends both arrive through the balancer must meet on the instance named by the routing ID.
@Suite(.timeLimit(.minutes(1)))
struct RelayHAProxyTests {
    static let haproxy = "/usr/sbin/haproxy"
    static let config = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/haproxy.cfg")

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: haproxy), "haproxy is not installed at /usr/sbin/haproxy"))
    func twoInstancesBehindHAProxy() async throws {
        try await RelayTest.withRelay({ $0.routingIDPrefix = 0x01 }) { first, _ async throws in
            try await RelayTest.withRelay({ $0.routingIDPrefix = 0x02 }) { second, _ async throws in
                let frontendPort = try await Self.freePort()
                try await Self.withHAProxy(
                    environment: [
                        "RELAY_FRONTEND": "127.0.0.1:\(frontendPort)",
                        "RELAY_INSTANCE_01": "127.0.0.1:\(first.port)",
                        "RELAY_INSTANCE_02": "127.0.0.1:\(second.port)",
                    ]
                ) {
                    let balancer = TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: frontendPort)
                    var prefixes: [UInt8] = []
                    for index in 0..<8 {
                        let tunnelID = RelayTest.randomTunnelID()
                        try await RelayTest.client.withConnection(to: RelayTest.newURL(balancer, tunnelID)) { phone async throws in
                            let routingID = try phone.routingID()
                            prefixes.append(routingID.bytes[0])
                            let url = RelayTest.connectURL(balancer, routingID, tunnelID)
                            try await RelayTest.client.withConnection(to: url) { client async throws in
                                try await client.send([UInt8(index), 1])
                                var fromClient = phone.messages.makeAsyncIterator()
                                #expect(try await RelayTest.next(&fromClient) == [UInt8(index), 1])
                                try await phone.send([UInt8(index), 2])
                                var fromPhone = client.messages.makeAsyncIterator()
                                #expect(try await RelayTest.next(&fromPhone) == [UInt8(index), 2])
                            }
                        }
                    }
                    // Round robin spread the /cable/new requests over both instances.
                    #expect(Set(prefixes) == [0x01, 0x02])
                    #expect(first.metricsText().contains("relay_tunnels_paired_total 4"))
                    #expect(second.metricsText().contains("relay_tunnels_paired_total 4"))
                    // A prefix no instance owns falls through to the pool and is unknown there.
                    let stray = try #require(RoutingID(bytes: [0x03, 0, 0]))
                    await #expect(throws: TunnelClientError.httpStatus(404)) {
                        try await RelayTest.client.withConnection(to: RelayTest.connectURL(balancer, stray, RelayTest.randomTunnelID())) { _ async throws in }
                    }
                }
            }
        }
    }

    /// A port that was free a moment ago (HAProxy cannot report an OS-chosen port).
    static func freePort() async throws -> Int {
        let probe = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = probe.localAddress?.port ?? 0
        try await probe.close()
        return port
    }

    /// Runs HAProxy in master-worker foreground mode, waits for its "Loading success." line
    /// (printed once the listeners are bound), runs `body`, then stops it with SIGTERM.
    static func withHAProxy(environment: [String: String], _ body: () async throws -> Void) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: haproxy)
        process.arguments = ["-W", "-db", "-f", config.path]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        let log = await readUntil("Loading success.", from: stderr.fileHandleForReading)
        try #require(log.contains("Loading success."), "haproxy did not start:\n\(log)")
        try await body()
    }

    static func readUntil(_ marker: String, from handle: FileHandle) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var text = ""
                while !text.contains(marker) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    text += String(decoding: chunk, as: UTF8.self)
                }
                continuation.resume(returning: text)
            }
        }
    }
}
