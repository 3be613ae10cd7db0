import HybridCore
import NIOCore
import TestLoopbackRelay
import Testing

@testable import TunnelRelay

/// A relay with ``RelayConfiguration/proxyProtocol``: every connection starts with a PROXY v2
/// header (bytes written out from the spec in ``ProxyProtocolV2ParserTests``), and the per-address
/// limits count the client the header names, an IPv6 client by its /64; only a peer in
/// ``RelayConfiguration/trustedProxies`` may send one.
@Suite(.timeLimit(.minutes(5)))
struct RelayProxyProtocolTests {
    /// PROXY headers on, believed from `proxies` (the tests' own connections come from 127.0.0.1).
    static func proxied(_ configuration: inout RelayConfiguration, from proxies: String = "127.0.0.1/32") {
        configuration.proxyProtocol = true
        // The lists here are literals that parse.
        configuration.trustedProxies = (try? TrustedProxySet(parsing: proxies)) ?? TrustedProxySet()
    }

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

    /// Sends `header` and a `/cable/new` upgrade from `source`; the status of the answer, `nil`
    /// if the relay closed the connection without one. The connection (and its pending tunnel)
    /// stays open while `body` runs.
    static func withNewTunnel<Result: Sendable>(
        port: Int, from source: String = "127.0.0.1", header: [UInt8], _ body: (Int?) async throws -> Result
    ) async throws -> Result {
        try await RawConnection.with(port: port, from: source) { raw async throws in
            let path = TunnelPath.new(RelayTest.randomTunnelID()).canonicalPath
            // A connection refused at accept may be closed before this write.
            try? await raw.send(bytes: header + Array(RawConnection.upgradeRequest(path: path).utf8))
            let status: Int?
            do {
                status = try await raw.readResponseHead().httpStatus
            } catch RawConnectionError.closedEarly {
                status = nil
            }
            return try await body(status)
        }
    }

    /// ``withNewTunnel(port:from:header:_:)`` for each header in turn, all held open together;
    /// `body` gets their statuses in order.
    static func withNewTunnels<Result: Sendable>(
        port: Int, from source: String = "127.0.0.1", headers: ArraySlice<[UInt8]>, statuses: [Int?] = [],
        _ body: ([Int?]) async throws -> Result
    ) async throws -> Result {
        guard let header = headers.first else { return try await body(statuses) }
        return try await withNewTunnel(port: port, from: source, header: header) { status async throws in
            try await withNewTunnels(
                port: port, from: source, headers: headers.dropFirst(), statuses: statuses + [status], body)
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
            Self.proxied(&$0)
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
            Self.proxied(&$0)
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
        try await RelayTest.withRelay({ Self.proxied(&$0) }) { relay, _ async throws in
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

    /// Six connections from one peer, each with a PROXY header naming another address, against a
    /// per-address pending cap of 2. From a trusted proxy each counts as the address it names, so
    /// all six are accepted (what a proxy relaying six clients needs). From a peer that is not a
    /// trusted proxy they are closed unanswered at accept: no forged address gets a tunnel.
    @Test(arguments: [true, false])
    func forgedAddressesCountOnlyFromATrustedProxy(trusted: Bool) async throws {
        try await RelayTest.withRelay({
            Self.proxied(&$0, from: trusted ? "127.0.0.1/32" : "127.0.0.2/32")
            $0.maxPendingTunnelsPerIP = 2
        }) { relay, _ async throws in
            let forged = (1...6).map { Self.header(ipv4: [198, 51, 100, UInt8($0)]) }
            try await Self.withNewTunnels(port: relay.port, headers: forged[...]) { statuses async throws in
                if trusted {
                    #expect(statuses == Array(repeating: 101, count: 6))
                    #expect(relay.tunnelCounts.pending == 6)
                } else {
                    #expect(statuses == Array(repeating: nil, count: 6), "forged PROXY headers were believed")
                    #expect(relay.tunnelCounts.pending == 0)
                }
            }
            if !trusted {
                #expect(relay.metricsText().contains(#"relay_rejects_total{reason="untrusted_proxy"} 6"#))
            }
        }
    }

    /// A victim's share of the pending cap cannot be taken by an untrusted peer that names the
    /// victim's address: the forgeries from 127.0.0.1 are refused, and the trusted proxy at
    /// 127.0.0.2 still gets the victim its two tunnels.
    @Test func untrustedPeerCannotLockOutAVictim() async throws {
        try await RelayTest.withRelay({
            Self.proxied(&$0, from: "127.0.0.2/32")
            $0.maxPendingTunnelsPerIP = 2
        }) { relay, _ async throws in
            let victim = Self.header(ipv4: [203, 0, 113, 50])
            let attack = Array(repeating: victim, count: 3)
            try await Self.withNewTunnels(port: relay.port, from: "127.0.0.1", headers: attack[...]) {
                attackStatuses async throws in
                #expect(attackStatuses == [nil, nil, nil])
                try await Self.withNewTunnels(port: relay.port, from: "127.0.0.2", headers: [victim, victim][...]) {
                    #expect($0 == [101, 101])
                }
            }
        }
    }

    /// An untrusted peer is closed before anything is read: no answer, even to a LOCAL header
    /// with a health check, and nothing counted against any client.
    @Test func untrustedPeerIsClosedUnread() async throws {
        try await RelayTest.withRelay({ Self.proxied(&$0, from: "10.0.0.0/8,::1/128") }) { relay, _ async throws in
            let local = ProxyProtocolV2ParserTests.signature + [0x20, 0x00, 0x00, 0x00]
            let answer = try await RawConnection.with(port: relay.port) { raw async throws in
                try? await raw.send(bytes: local + Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                return await raw.readToEnd()
            }
            #expect(answer.isEmpty)
            #expect(relay.metricsText().contains(#"relay_rejects_total{reason="untrusted_proxy"} 1"#))
            try await relay.allConnectionsClosed()
        }
    }

    /// A header split across reads (one byte at a time) is reassembled.
    @Test func headerInPieces() async throws {
        try await RelayTest.withRelay({ Self.proxied(&$0) }) { relay, _ async throws in
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
            for name in [
                "relay_connections_open", "relay_tunnels_pending", "relay_tunnels_paired",
                "relay_messages_forwarded_total", "relay_bytes_forwarded_total", "relay_rejects_total",
                "relay_pairing_latency_seconds_bucket",
            ] {
                #expect(body.contains(name), "missing \(name)")
            }
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
