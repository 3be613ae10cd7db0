import Foundation
import NIOCore
import NIOPosix
import TestChildProcess
import TestLoopbackRelay
import Testing

@testable import TunnelRelay

/// The `--metrics-port` listener's own budget: a connection cap and an idle timeout, out of the
/// descriptors that the tunnel port's limits leave free.
@Suite(.timeLimit(.minutes(5)))
struct RelayMetricsLimitTests {
    /// The built `tunnel-relay` under a 256-descriptor limit (soft and hard, so the binary cannot
    /// raise it): 260 idle connections to its metrics port, more than it has descriptors. The
    /// listener closes all but its cap of them at once, and the tunnel port still answers.
    /// (Before the cap, the metrics listener took every descriptor and `/healthz` got no answer.)
    @Test func idleMetricsConnectionsLeaveTheTunnelPortItsDescriptors() async throws {
        let binary = RelayCommandTests.productsDirectory.appendingPathComponent("tunnel-relay")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build tunnel-relay first")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", #"ulimit -n 256 && exec "$0" "$@""#, binary.path, "--host", "127.0.0.1", "--port", "0",
            "--metrics-port", "0", "--handshake-timeout", "600",
        ]
        let (stdout, _) = try ChildProcess.startStreamingLines(process)
        defer { if process.isRunning { process.terminate() } }
        var printed = stdout.makeAsyncIterator()
        let port = try #require(Self.port(in: await printed.next(), after: "listening on "))
        let metricsPort = try #require(Self.port(in: await printed.next(), after: "metrics on "))

        let idle = 260
        let cap = 8  // RelayConfiguration.maxMetricsConnections's default
        let (closes, closed) = AsyncStream.makeStream(of: Void.self)
        let channels = try await Self.within(.seconds(60), "connecting \(idle) idle clients to the metrics port") {
            var opened: [any Channel] = []
            for _ in 0..<idle {
                let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connect(host: "127.0.0.1", port: metricsPort).get()
                channel.closeFuture.whenComplete { _ in closed.yield() }
                opened.append(channel)
            }
            return opened
        }
        defer { for channel in channels { channel.close(promise: nil) } }
        try await Self.within(.seconds(30), "the metrics listener closing all but \(cap) idle connections") {
            var count = 0
            for await _ in closes {
                count += 1
                if count == idle - cap { return }
            }
        }
        let status = try await Self.within(.seconds(30), "an answer to /healthz on the tunnel port") {
            try await RelayRejectionTests.status(port: port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        #expect(status == 200)
        process.terminate()
        #expect(await ChildProcess.exitStatus(of: process) == 0)
    }

    /// Past the cap, a metrics connection is closed at once; below it, a scrape is answered.
    @Test func metricsConnectionsPastTheCapAreClosedAtOnce() async throws {
        #expect(RelayConfiguration().maxMetricsConnections == 8)
        try await RelayTest.withRelay({
            $0.metricsPort = 0
            $0.maxMetricsConnections = 2
            $0.metricsIdleTimeout = .seconds(3600)
        }) { relay, _ async throws in
            let metricsPort = try #require(relay.metricsPort)
            try await RawConnection.with(port: metricsPort) { first async throws in
                try await RawConnection.with(port: metricsPort) { second async throws in
                    // Both are accepted (and held) before the third one comes.
                    try await first.send("GET /metr")
                    try await second.send("GET /metr")
                    // Bounded: a third connection let in would wait for the hour-long timeout.
                    let third = try await Self.within(.seconds(30), "the third connection's close at accept") {
                        try await RawConnection.with(port: metricsPort) { raw async throws in
                            await raw.readToEnd()
                        }
                    }
                    #expect(third.isEmpty)
                    try await first.send("ics HTTP/1.1\r\nHost: x\r\n\r\n")
                    #expect(String(decoding: await first.readToEnd(), as: UTF8.self).hasPrefix("HTTP/1.1 200"))
                }
            }
            // The slots are given back when the connections close.
            let body = try await RawConnection.with(port: metricsPort) { raw async throws in
                try await raw.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
                return String(decoding: await raw.readToEnd(), as: UTF8.self)
            }
            #expect(body.hasPrefix("HTTP/1.1 200"))
        }
    }

    /// A metrics connection that sends no request within ``RelayConfiguration/metricsIdleTimeout``
    /// gets 408 and is closed, whatever the (long) handshake timeout of the tunnel port.
    @Test func idleMetricsConnectionIsClosedAfterItsTimeout() async throws {
        try await RelayTest.withRelay({
            $0.metricsPort = 0
            $0.metricsIdleTimeout = .milliseconds(200)
        }) { relay, _ async throws in
            let metricsPort = try #require(relay.metricsPort)
            let received = try await RawConnection.with(port: metricsPort) { raw async throws in
                await raw.readToEnd()
            }
            // Answered as the tunnel port answers a slow client, then closed.
            #expect(String(decoding: received, as: UTF8.self).hasPrefix("HTTP/1.1 408"))
        }
    }

    /// The port in a `tunnel-relay` ready line such as `listening on 127.0.0.1:8080`.
    static func port(in line: String?, after prefix: String) -> Int? {
        guard let line, line.hasPrefix(prefix), let colon = line.lastIndex(of: ":") else { return nil }
        return Int(line[line.index(after: colon)...])
    }

    /// `body`'s result, or a failure naming `what` if it takes longer than `limit` (a bound on a
    /// failing run only: a passing one never waits for it).
    static func within<Result: Sendable>(
        _ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let result = first else {
                throw TimedOut(what: what, limit: limit)
            }
            return result
        }
    }

    struct TimedOut: Error, CustomStringConvertible {
        let what: String
        let limit: Duration
        var description: String { "no \(what) within \(limit)" }
    }
}
