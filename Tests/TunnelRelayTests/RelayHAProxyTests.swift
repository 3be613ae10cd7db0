import Foundation
import HybridCore
import HybridTransport
import NIOCore
import NIOPosix
import Testing
@testable import TunnelRelay

/// Three relay instances behind HAProxy running the shipped deploy/haproxy.cfg: tunnels whose two
/// ends both arrive through the balancer must meet on the instance named by the routing ID.
@Suite(.timeLimit(.minutes(1)), .enabled(if: HAProxyProcess.isInstalled, "haproxy is not installed at /usr/sbin/haproxy"))
struct RelayHAProxyTests {
    @Test func threeInstancesBehindHAProxy() async throws {
        try await RelayTest.withRelay({ $0.routingIDPrefix = 0x01 }) { first, _ async throws in
            try await RelayTest.withRelay({ $0.routingIDPrefix = 0x02 }) { second, _ async throws in
                try await RelayTest.withRelay({ $0.routingIDPrefix = 0x03 }) { third, _ async throws in
                    try await HAProxyProcess.with(instancePorts: [first.port, second.port, third.port]) { haproxy in
                        for name in ["relay01", "relay02", "relay03"] { try await haproxy.waitFor(name, state: .up) }
                        let balancer = TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: haproxy.frontendPort)
                        var prefixes: [UInt8] = []
                        for index in 0..<9 {
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
                        // leastconn with no open tunnels breaks ties round robin: all three got some.
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
                            try await RelayTest.client.withConnection(to: RelayTest.connectURL(balancer, stray, RelayTest.randomTunnelID())) { _ async throws in }
                        }
                    }
                }
            }
        }
    }
}
