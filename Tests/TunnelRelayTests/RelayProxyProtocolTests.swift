import HybridCore
import NIOCore
import Testing

@testable import TunnelRelay

/// A relay with ``RelayConfiguration/proxyProtocol``: every connection starts with a PROXY v2
/// header (bytes written out from the spec in ``ProxyProtocolV2ParserTests``), and the per-address
/// limits count the client the header names, an IPv6 client by its /64.
@Suite(.timeLimit(.minutes(5)))
struct RelayProxyProtocolTests {
    /// A PROXY TCP-over-IPv4 header from `source`.
    static func header(ipv4 source: [UInt8]) -> [UInt8] {
        var header = ProxyProtocolV2ParserTests.ipv4
        header.replaceSubrange(16..<20, with: source)
        return header
    }

    static func header(ipv6 source: [UInt8]) -> [UInt8] { ProxyProtocolV2ParserTests.ipv6(source: source) }

    /// 2001:db8:1:`third`::`last`.
    static func ipv6(third: UInt8, last: UInt8) -> [UInt8] {
        [0x20, 0x01, 0x0D, 0xB8, 0x00, 0x01, 0x00, third] + Array(repeating: 0, count: 7) + [last]
    }

    /// Sends `header` and a `/cable/new` upgrade; the status of the answer. The connection (and
    /// its pending tunnel) stays open while `body` runs.
    static func withNewTunnel<Result: Sendable>(
        port: Int, header: [UInt8], _ body: (Int?) async throws -> Result
    ) async throws -> Result {
        try await RawConnection.with(port: port) { raw async throws in
            let path = TunnelPath.new(RelayTest.randomTunnelID()).canonicalPath
            try await raw.send(bytes: header + Array(RawConnection.upgradeRequest(path: path).utf8))
            return try await body(try await raw.readResponseHead().httpStatus)
        }
    }

    /// Two pending tunnels from one proxied address fill its share; a third from that address
    /// gets 429, one from another address is accepted: the header's address is what counts.
    @Test(arguments: [
        (
            Self.header(ipv4: [203, 0, 113, 7]), Self.header(ipv4: [203, 0, 113, 7]),
            Self.header(ipv4: [203, 0, 113, 8])
        ),
        // IPv6: three addresses of 2001:db8:1:2::/64 are one client; 2001:db8:1:3::/64 another.
        (
            Self.header(ipv6: ipv6(third: 2, last: 1)), Self.header(ipv6: ipv6(third: 2, last: 2)),
            Self.header(ipv6: ipv6(third: 3, last: 1))
        ),
    ])
    func pendingLimitCountsTheProxiedClient(first: [UInt8], sameClient: [UInt8], otherClient: [UInt8]) async throws {
        try await RelayTest.withRelay({
            $0.proxyProtocol = true
            $0.maxPendingTunnelsPerIP = 2
        }) { relay, _ async throws in
            try await Self.withNewTunnel(port: relay.port, header: first) { status async throws in
                #expect(status == 101)
                try await Self.withNewTunnel(port: relay.port, header: sameClient) { status async throws in
                    #expect(status == 101)
                    try await Self.withNewTunnel(port: relay.port, header: sameClient) { status in
                        #expect(status == 429)
                    }
                    try await Self.withNewTunnel(port: relay.port, header: otherClient) { status in
                        #expect(status == 101)
                    }
                }
            }
        }
    }

    /// The connection rate limit counts the proxied client too (burst 2).
    @Test func rateLimitCountsTheProxiedClient() async throws {
        try await RelayTest.withRelay({
            $0.proxyProtocol = true
            $0.connectionsPerSecondPerIP = 0.001
            $0.connectionBurstPerIP = 2
        }) { relay, _ async throws in
            let client = Self.header(ipv4: [203, 0, 113, 7])
            for _ in 0..<2 { try await Self.withNewTunnel(port: relay.port, header: client) { #expect($0 == 101) } }
            try await Self.withNewTunnel(port: relay.port, header: client) { #expect($0 == 429) }
            try await Self.withNewTunnel(port: relay.port, header: Self.header(ipv4: [203, 0, 113, 8])) {
                #expect($0 == 101)
            }
        }
    }

    /// Without a header the connection is closed unanswered; a LOCAL header (a health check) is
    /// served.
    @Test func requestWithoutHeaderIsRefused() async throws {
        try await RelayTest.withRelay({ $0.proxyProtocol = true }) { relay, _ async throws in
            let answer = try await RawConnection.with(port: relay.port) { raw async throws in
                try? await raw.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                return await raw.readToEnd()
            }
            #expect(answer.isEmpty)
            #expect(relay.metricsText().contains(#"relay_rejects_total{reason="missing_proxy_header"} 1"#))
            let local = ProxyProtocolV2ParserTests.signature + [0x20, 0x00, 0x00, 0x00]
            let status = try await RawConnection.with(port: relay.port) { raw async throws in
                try await raw.send(bytes: local + Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                return try await raw.readResponseHead().httpStatus
            }
            #expect(status == 200)
        }
    }

    /// A header split across reads (one byte at a time) is reassembled.
    @Test func headerInPieces() async throws {
        try await RelayTest.withRelay({ $0.proxyProtocol = true }) { relay, _ async throws in
            let status = try await RawConnection.with(port: relay.port) { raw async throws in
                for byte in Self.header(ipv4: [203, 0, 113, 7]) { try await raw.send(bytes: [byte]) }
                try await raw.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                return try await raw.readResponseHead().httpStatus
            }
            #expect(status == 200)
        }
    }
}

/// ``RelayConfiguration/metricsPort``: `/metrics` on its own loopback listener, not on the tunnel port.
@Suite(.timeLimit(.minutes(5)))
struct RelayMetricsListenerTests {
    @Test func metricsOnlyOnTheirOwnListener() async throws {
        try await RelayTest.withRelay({ $0.metricsPort = 0 }) { relay, _ async throws in
            let metricsPort = try #require(relay.metricsPort)
            #expect(metricsPort != relay.port)
            #expect(
                try await RelayRejectionTests.status(port: relay.port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
                    == 404)
            let body = try await RawConnection.with(port: metricsPort) { raw async throws in
                try await raw.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
                return String(decoding: await raw.readToEnd(), as: UTF8.self)
            }
            #expect(body.hasPrefix("HTTP/1.1 200"))
            #expect(body.contains("relay_connections_open"))
            // Nothing else there: no tunnels, no health.
            #expect(
                try await RelayRejectionTests.status(port: metricsPort, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                    == 404)
            let path = TunnelPath.new(RelayTest.randomTunnelID()).canonicalPath
            #expect(
                try await RelayRejectionTests.status(port: metricsPort, RawConnection.upgradeRequest(path: path)) == 404
            )
        }
    }
}
