import Glibc
import HybridCore
import NIOCore
import TestLoopbackRelay
import Testing

@testable import TunnelRelay

/// The options of the sockets the relay accepts, read back from the kernel (`getsockopt`).
@Suite(.timeLimit(.minutes(5)))
struct RelaySocketOptionTests {
    /// `TCP_NODELAY` is on (a small frame must not wait for the peer's delayed ACK), and nothing
    /// is set that needs a capability: `SO_DEBUG` (what `.socketOption(.tcp_nodelay)` sets, as it
    /// means level `SOL_SOCKET`) needs `CAP_NET_ADMIN`, which the hardened unit
    /// (`deploy/tunnel-relay.service`, `DynamicUser=yes`) does not grant, so without it every
    /// accepted connection failed and was reset.
    @Test func acceptedSocketsHaveNoDelayAndNoDebug() async throws {
        try await RelayTest.withRelay { relay, origin async throws in
            try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, RelayTest.randomTunnelID())) {
                _ async throws in
                let channels = relay.openConnections
                #expect(channels.count == 1)
                for channel in channels {
                    let noDelay = try await channel.getOption(.tcpOption(.tcp_nodelay)).get()
                    let debug = try await channel.getOption(
                        .socket(SocketOptionLevel(SOL_SOCKET), SocketOptionName(SO_DEBUG))
                    ).get()
                    #expect(noDelay != 0, "TCP_NODELAY off on an accepted socket")
                    #expect(debug == 0, "SO_DEBUG on an accepted socket: fails without CAP_NET_ADMIN")
                }
            }
        }
    }
}
