import Foundation
import HybridCore
import HybridTransport
import TestChildProcess
import TestLoopbackRelay
import Testing

@testable import TunnelRelay
@testable import tunnel_relay

@Suite(.timeLimit(.minutes(5)))
struct RelayCommandTests {
    @Test func flagsBecomeConfiguration() throws {
        let command = try TunnelRelayCommand.parse([
            "--host", "::1", "--port", "0", "--routing-prefix", "7", "--pending-ttl", "1.5",
            "--max-message-size", "4096", "--rate-per-ip", "0", "--no-metrics", "--drain-delay", "2.5",
        ])
        let configuration = command.relayConfiguration
        #expect(configuration.host == "::1")
        #expect(configuration.port == 0)
        #expect(configuration.routingIDPrefix == 7)
        #expect(configuration.pendingTunnelTTL == .milliseconds(1500))
        #expect(configuration.maxMessageSize == 4096)
        #expect(configuration.connectionsPerSecondPerIP == 0)
        #expect(!configuration.metricsEnabled)
        #expect(configuration.tls == nil)
        #expect(configuration.drainDelay == .milliseconds(2500))
    }

    @Test func limitFlagsBecomeConfiguration() throws {
        let command = try TunnelRelayCommand.parse([
            "--max-connections-per-ip", "0", "--max-pending-per-ip", "7", "--max-queued-bytes", "1000",
            "--max-queued-total", "5000", "--max-pings", "5", "--outbound-high-water", "4096",
            "--inflight-allowance", "0", "--max-inflight-total", "123456",
        ])
        let configuration = command.relayConfiguration
        #expect(configuration.maxConnectionsPerIP == 0)
        #expect(configuration.maxPendingTunnelsPerIP == 7)
        #expect(configuration.maxQueuedBytesPerTunnel == 1000)
        #expect(configuration.maxQueuedBytesTotal == 5000)
        #expect(configuration.maxPingsPerInterval == 5)
        #expect(configuration.outboundHighWaterMark == 4096)
        #expect(configuration.inFlightAllowancePerConnection == 0)
        #expect(configuration.maxInFlightBytesTotal == 123_456)
        // Unset caps keep the defaults derived from the descriptor limit.
        #expect(configuration.maxConnections == RelayDefaultLimits.current.maxConnections)
        #expect(throws: (any Error).self) { try TunnelRelayCommand.parse(["--max-pending-per-ip", "-1"]) }
        #expect(throws: (any Error).self) { try TunnelRelayCommand.parse(["--max-inflight-total", "0"]) }
        #expect(throws: (any Error).self) { try TunnelRelayCommand.parse(["--inflight-allowance", "-1"]) }
    }

    @Test func tlsFlagsGoTogether() {
        #expect(throws: (any Error).self) { try TunnelRelayCommand.parse(["--tls-cert", "a.pem"]) }
        #expect(throws: (any Error).self) { try TunnelRelayCommand.parse(["--port", "70000"]) }
        #expect(throws: (any Error).self) { try TunnelRelayCommand.parse(["--drain-delay", "-1"]) }
    }

    /// `--proxy-protocol` names the proxies it believes; without `--proxy-protocol-from` it is
    /// refused at start, and a bad entry is named in the message.
    @Test func proxyProtocolNeedsItsProxies() throws {
        let command = try TunnelRelayCommand.parse([
            "--proxy-protocol", "--proxy-protocol-from", "127.0.0.1/32, 10.0.0.0/8,fd00::/8",
        ])
        let configuration = command.relayConfiguration
        #expect(configuration.proxyProtocol)
        #expect(configuration.trustedProxies.description == "127.0.0.1/32,10.0.0.0/8,fd00::/8")
        #expect(try TunnelRelayCommand.parse([]).relayConfiguration.trustedProxies.isEmpty)

        func refusal(_ arguments: [String]) -> String {
            do {
                _ = try TunnelRelayCommand.parse(arguments)
                return "accepted"
            } catch {
                return TunnelRelayCommand.message(for: error)
            }
        }
        #expect(refusal(["--proxy-protocol"]).contains("--proxy-protocol needs --proxy-protocol-from"))
        #expect(refusal(["--proxy-protocol-from", "127.0.0.1"]).contains("only used with --proxy-protocol"))
        let bad = refusal(["--proxy-protocol", "--proxy-protocol-from", "127.0.0.1/32,10.0.0.1/8"])
        #expect(bad.contains("--proxy-protocol-from: '10.0.0.1/8' has bits set after its prefix"), "\(bad)")
        #expect(refusal(["--proxy-protocol", "--proxy-protocol-from", ""]).contains("no proxy named"))
    }

    /// The built binary: prints `listening on H:P`, serves a tunnel, exits 0 on SIGTERM.
    @Test func binarySmokeTest() async throws {
        let process = try Self.relayProcess(["--log-level", "error"])
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let line = try #require(try await Self.firstLine(of: output.fileHandleForReading))
        let match = try #require(line.firstMatch(of: /listening on 127\.0\.0\.1:(\d+)/))
        let port = try #require(Int(match.1))
        #expect(port > 0)
        let origin = TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: port)
        let tunnelID = RelayTest.randomTunnelID()
        try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, tunnelID)) { phone async throws in
            let routingID = try phone.routingID()
            try await RelayTest.client.withConnection(to: RelayTest.connectURL(origin, routingID, tunnelID)) {
                client async throws in
                try await client.send([1])
                var fromClient = phone.messages.makeAsyncIterator()
                #expect(try await RelayTest.next(&fromClient) == [1])
            }
        }
        process.terminate()  // SIGTERM to our own child
        let status = await Self.exitStatus(of: process)
        #expect(status == 0)
    }

    /// The caps without a built-in default come from `TUNNEL_RELAY_*` when their flag is absent;
    /// a flag wins over the variable. Seen in the binary's own "limits" log line and its metrics
    /// line (environment variables are process-wide, so not set in this process).
    @Test func environmentFillsTheCapsAFlagDoesNotSet() async throws {
        let process = try Self.relayProcess(["--max-pending", "41"])
        process.environment = [
            "TUNNEL_RELAY_MAX_CONNECTIONS": "77", "TUNNEL_RELAY_MAX_CONNECTIONS_PER_IP": "6",
            "TUNNEL_RELAY_MAX_PENDING": "999", "TUNNEL_RELAY_MAX_PENDING_PER_IP": "5",
            "TUNNEL_RELAY_METRICS_PORT": "0",
        ]
        let (stdout, stderr) = try ChildProcess.startStreamingLines(process)
        defer { if process.isRunning { process.terminate() } }
        var logs = stderr.makeAsyncIterator()
        var limits: String?
        while let line = await logs.next() {
            if line.contains("limits") {
                limits = line
                break
            }
        }
        let line = try #require(limits)
        for expected in ["connections=77", "connections.per_ip=6", "pending=41", "pending.per_ip=5"] {
            #expect(line.contains(expected), "\(line)")
        }
        var printed = stdout.makeAsyncIterator()
        #expect(await printed.next()?.hasPrefix("listening on 127.0.0.1:") == true)
        #expect(await printed.next()?.hasPrefix("metrics on ") == true)
        process.terminate()
        #expect(await ChildProcess.exitStatus(of: process) == 0)
    }

    /// The built `tunnel-relay` on 127.0.0.1, port 0, with `arguments` after those; not started.
    static func relayProcess(_ arguments: [String]) throws -> Process {
        let binary = productsDirectory.appendingPathComponent("tunnel-relay")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build tunnel-relay first")
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--host", "127.0.0.1", "--port", "0"] + arguments
        return process
    }

    /// `.build/<config>/` (the directory holding the test bundle and the executables).
    static var productsDirectory: URL {
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL
    }

    /// Reads `handle` until the first newline (or EOF), off the cooperative pool.
    static func firstLine(of handle: FileHandle) async throws -> String? {
        let handle = UncheckedFileHandle(handle)
        return await ChildProcess.offPool {
            var bytes = Data()
            while true {
                let chunk = handle.value.availableData
                if chunk.isEmpty { return nil }
                bytes.append(chunk)
                if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                    return String(decoding: bytes[..<newline], as: UTF8.self)
                }
            }
        }
    }

    static func exitStatus(of process: Process) async -> Int32 {
        await ChildProcess.exitStatus(of: process)
    }
}

/// A file handle read by one thread at a time.
struct UncheckedFileHandle: @unchecked Sendable {
    let value: FileHandle
    init(_ value: FileHandle) { self.value = value }
}
