import Foundation
import HybridCore
import HybridTransport
import NIOCore
import NIOPosix
import TestLoopbackRelay
import Testing

@testable import TunnelRelay

/// Three relay instances behind HAProxy running the shipped deploy/haproxy.cfg: tunnels whose two
/// ends both arrive through the balancer must meet on the instance named by the routing ID.
@Suite(
    .timeLimit(.minutes(5)), .enabled(if: HAProxyProcess.isInstalled, "haproxy is not installed at /usr/sbin/haproxy"))
struct RelayHAProxyTests {
    /// An instance as deploy/haproxy.cfg expects it: its routing prefix, and the PROXY v2 header
    /// that `send-proxy-v2` puts before every connection, believed from HAProxy on loopback only.
    static func behindHAProxy(_ configuration: inout RelayConfiguration, prefix: UInt8) {
        configuration.routingIDPrefix = prefix
        RelayProxyProtocolTests.proxied(&configuration, from: "127.0.0.1/32")
    }

    /// Runs `body` with one relay in all three slots of deploy/haproxy.cfg, once HAProxy has it up.
    static func withOneRelayBehindHAProxy(
        _ configure: @escaping (inout RelayConfiguration) -> Void = { _ in },
        _ body: (RelayServer, HAProxyProcess) async throws -> Void
    ) async throws {
        try await RelayTest.withRelay({
            behindHAProxy(&$0, prefix: 0x01)
            configure(&$0)
        }) { relay, _ async throws in
            try await HAProxyProcess.with(instancePorts: Array(repeating: relay.port, count: 3)) { haproxy in
                for name in ["relay01", "relay02", "relay03"] { try await haproxy.waitFor(name, state: .up) }
                try await body(relay, haproxy)
            }
        }
    }

    /// The frontend forwards tunnel paths only: `/metrics` (every counter of the instance) and
    /// `/healthz` are not reachable through it, however they are spelled.
    @Test func frontendDoesNotExposeMetricsOrHealth() async throws {
        try await Self.withOneRelayBehindHAProxy { relay, haproxy in
            for path in ["/metrics", "/healthz", "/metrics?x=1", "//metrics", "/cable/../metrics"] {
                let answer = try await RawConnection.with(port: haproxy.frontendPort) { raw async throws in
                    try await raw.send("GET \(path) HTTP/1.1\r\nHost: relay.example\r\nConnection: close\r\n\r\n")
                    return try await raw.readResponseHead() + String(decoding: await raw.readToEnd(), as: UTF8.self)
                }
                #expect(answer.httpStatus != 200, "\(path) through HAProxy: \(answer)")
                #expect(!answer.contains("relay_"), "\(path) through HAProxy leaked metrics")
                #expect(!answer.hasSuffix("\r\n\r\nok\n"), "\(path) through HAProxy leaked the health answer")
            }
        }
    }

    /// Behind HAProxy every connection comes from HAProxy's address; the PROXY v2 header names
    /// the client, so the per-address pending cap (2) stops the client at 127.0.0.2 and not the
    /// one at 127.0.0.3.
    @Test func perClientLimitsWorkBehindHAProxy() async throws {
        try await Self.withOneRelayBehindHAProxy({ $0.maxPendingTunnelsPerIP = 2 }) { relay, haproxy in
            let port = haproxy.frontendPort
            func newTunnel(from source: String, _ body: (Int?) async throws -> Void) async throws {
                try await RawConnection.with(port: port, from: source) { raw async throws in
                    let path = TunnelPath.new(RelayTest.randomTunnelID()).canonicalPath
                    try await raw.send(RawConnection.upgradeRequest(path: path))
                    try await body(try await raw.readResponseHead().httpStatus)
                }
            }
            try await newTunnel(from: "127.0.0.2") { status async throws in
                #expect(status == 101)
                try await newTunnel(from: "127.0.0.2") { status async throws in
                    #expect(status == 101)
                    try await newTunnel(from: "127.0.0.2") { #expect($0 == 429) }
                    try await newTunnel(from: "127.0.0.3") { #expect($0 == 101) }
                }
            }
        }
    }

    @Test func threeInstancesBehindHAProxy() async throws {
        try await RelayTest.withRelay({ Self.behindHAProxy(&$0, prefix: 0x01) }) { first, _ async throws in
            try await RelayTest.withRelay({ Self.behindHAProxy(&$0, prefix: 0x02) }) { second, _ async throws in
                try await RelayTest.withRelay({ Self.behindHAProxy(&$0, prefix: 0x03) }) { third, _ async throws in
                    try await HAProxyProcess.with(instancePorts: [first.port, second.port, third.port]) { haproxy in
                        for name in ["relay01", "relay02", "relay03"] { try await haproxy.waitFor(name, state: .up) }
                        let balancer = TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: haproxy.frontendPort)
                        // `balance uri` hashes the path, so the random tunnel ID picks the instance: open
                        // tunnels until every instance got one (with consistent hashing each instance
                        // holds a share of the hash ring; 60 tunnels miss a share of 15 % with
                        // probability below 10⁻⁴). Nine were too few: one instance got none about one
                        // run in seven.
                        var prefixes: [UInt8] = []
                        for index in 0..<60 where Set(prefixes).count < 3 {
                            let tunnelID = RelayTest.randomTunnelID()
                            try await RelayTest.client.withConnection(to: RelayTest.newURL(balancer, tunnelID)) {
                                phone async throws in
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
                        #expect(Set(prefixes) == [0x01, 0x02, 0x03])
                        let paired = [first, second, third].map { relay in
                            relay.metricsText().split(separator: "\n")
                                .first { $0.hasPrefix("relay_tunnels_paired_total ") }.map(String.init) ?? ""
                        }
                        #expect(paired.count == 3)
                        for prefix: UInt8 in 1...3 {
                            let expected = prefixes.filter { $0 == prefix }.count
                            #expect(paired[Int(prefix) - 1] == "relay_tunnels_paired_total \(expected)")
                        }
                        // A prefix no instance owns falls through to the pool and is unknown there.
                        let stray = try #require(RoutingID(bytes: [0x04, 0, 0]))
                        await #expect(throws: TunnelClientError.httpStatus(404)) {
                            try await RelayTest.client.withConnection(
                                to: RelayTest.connectURL(balancer, stray, RelayTest.randomTunnelID())
                            ) { _ async throws in }
                        }
                    }
                }
            }
        }
    }
}
