import HybridCore
import HybridTransport
import TestLoopbackRelay
import Testing

@testable import TunnelRelay

@Suite(.timeLimit(.minutes(5)))
struct RelayLimitTests {
    /// Opens a paired tunnel and runs `body(phone, client)`.
    static func withTunnel(
        _ configure: @escaping (inout RelayConfiguration) -> Void,
        _ body: (TunnelConnection, TunnelConnection) async throws -> Void
    ) async throws {
        try await RelayTest.withRelay(configure) { _, origin async throws in
            let tunnelID = RelayTest.randomTunnelID()
            try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, tunnelID)) { phone async throws in
                let routingID = try phone.routingID()
                try await RelayTest.client.withConnection(to: RelayTest.connectURL(origin, routingID, tunnelID)) {
                    client async throws in
                    try await body(phone, client)
                }
            }
        }
    }

    /// A whole tunnel from 127.0.0.1: opened, paired, one message each way, closed.
    static func exchange(_ origin: TunnelServerOrigin) async throws {
        let tunnelID = RelayTest.randomTunnelID()
        try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, tunnelID)) { phone async throws in
            try await RelayTest.client.withConnection(to: RelayTest.connectURL(origin, try phone.routingID(), tunnelID))
            { client async throws in
                try await client.send([1, 2])
                var fromClient = phone.messages.makeAsyncIterator()
                #expect(try await RelayTest.next(&fromClient) == [1, 2])
                try await phone.send([3])
                var fromPhone = client.messages.makeAsyncIterator()
                #expect(try await RelayTest.next(&fromPhone) == [3])
            }
        }
    }

    @Test func oversizedMessageClosesWith1009() async throws {
        try await Self.withTunnel({ $0.maxMessageSize = 1000 }) { phone, client async throws in
            try await client.send([UInt8](repeating: 1, count: 1000))
            try await client.send([UInt8](repeating: 2, count: 1001))
            #expect(await RelayTest.drain(client).code == RelayCloseCode.messageTooBig.rawValue)
            let (messages, code) = await RelayTest.drain(phone)
            #expect(messages == [[UInt8](repeating: 1, count: 1000)])
            #expect(code == RelayCloseCode.peerDropped.rawValue)
        }
    }

    @Test func messageCountLimit() async throws {
        try await Self.withTunnel({ $0.maxMessagesPerDirection = 3 }) { phone, client async throws in
            for index in 0..<4 { try await client.send([UInt8(index)]) }
            #expect(await RelayTest.drain(client).code == RelayCloseCode.limitExceeded.rawValue)
            let (messages, code) = await RelayTest.drain(phone)
            #expect(messages == [[0], [1], [2]])
            #expect(code == RelayCloseCode.peerDropped.rawValue)
        }
    }

    @Test func byteLimit() async throws {
        try await Self.withTunnel({ $0.maxBytesPerDirection = 10 }) { phone, client async throws in
            try await phone.send([UInt8](repeating: 0, count: 10))
            try await phone.send([1])
            #expect(await RelayTest.drain(phone).code == RelayCloseCode.limitExceeded.rawValue)
            #expect(await RelayTest.drain(client).messages == [[UInt8](repeating: 0, count: 10)])
        }
    }

    @Test func emptyMessageIsAPolicyViolation() async throws {
        try await Self.withTunnel({ _ in }) { phone, client async throws in
            try await client.send([])
            #expect(await RelayTest.drain(client).code == RelayCloseCode.policyViolation.rawValue)
            #expect(await RelayTest.drain(phone).code == RelayCloseCode.peerDropped.rawValue)
        }
    }

    @Test func textFrameIsAPolicyViolation() async throws {
        try await RelayTest.withRelay { _, origin async throws in
            try await RawConnection.with(port: origin.effectivePort) { raw async throws in
                try await raw.send(
                    RawConnection.upgradeRequest(path: TunnelPath.new(RelayTest.randomTunnelID()).canonicalPath))
                #expect(try await raw.readResponseHead().httpStatus == 101)
                try await raw.send(bytes: RawConnection.maskedFrame(opcode: 0x1, payload: Array("hello".utf8)))
                #expect(try await raw.readCloseCode() == RelayCloseCode.policyViolation.rawValue)
            }
        }
    }

    @Test func fragmentedMessageIsReassembled() async throws {
        try await RelayTest.withRelay { _, origin async throws in
            let tunnelID = RelayTest.randomTunnelID()
            try await RawConnection.with(port: origin.effectivePort) { raw async throws in
                let routingID = try await raw.openNewTunnel(tunnelID)
                var first = RawConnection.maskedFrame(opcode: 0x2, payload: [1, 2])
                first[0] &= 0x7f  // FIN clear
                try await raw.send(bytes: first + RawConnection.maskedFrame(opcode: 0x0, payload: [3]))
                try await RelayTest.client.withConnection(to: RelayTest.connectURL(origin, routingID, tunnelID)) {
                    client async throws in
                    var fromPhone = client.messages.makeAsyncIterator()
                    let message = try await RelayTest.next(&fromPhone)
                    #expect(message == [1, 2, 3])
                }
            }
        }
    }
}
