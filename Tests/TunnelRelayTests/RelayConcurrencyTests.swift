import HybridCore
import HybridTransport
import TestLoopbackRelay
import Testing

@testable import TunnelRelay

/// Many tunnels at once on one relay, both event loops busy: messages keep their order, and a
/// close never overtakes the messages sent before it (a regression: a peer-joined event used to
/// close the new side before the messages already on their way were written).
@Suite(.timeLimit(.minutes(5)))
struct RelayConcurrencyTests {
    @Test func closeNeverOvertakesForwardedMessages() async throws {
        try await RelayTest.withRelay { relay, origin in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for tunnel in 0..<60 {
                    group.addTask {
                        let tunnelID = RelayTest.randomTunnelID()
                        try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, tunnelID)) { phone in
                            let routingID = try phone.routingID()
                            let count = 1 + tunnel % 5
                            try await RelayTest.client.withConnection(
                                to: RelayTest.connectURL(origin, routingID, tunnelID)
                            ) { client in
                                for index in 0..<count { try await client.send([UInt8(tunnel), UInt8(index)]) }
                                await client.close()
                            }
                            let (messages, code) = await RelayTest.drain(phone)
                            #expect(messages == (0..<count).map { [UInt8(tunnel), UInt8($0)] })
                            #expect(code == RelayCloseCode.peerClosed.rawValue)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(relay.tunnelCounts == (pending: 0, paired: 0))
        }
    }
}
