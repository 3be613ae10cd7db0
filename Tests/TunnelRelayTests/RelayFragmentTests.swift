import HybridCore
import HybridTransport
import TestLoopbackRelay
import Testing

@testable import TunnelRelay

/// Fragmented messages (RFC 6455 §5.4) sent by a raw client: reassembled before they are
/// forwarded, control frames allowed between fragments, and the fragmentation rules and the
/// message size limit enforced with the close codes of RFC 6455 §7.4.1.
@Suite(.timeLimit(.minutes(5)))
struct RelayFragmentTests {
    /// `frame` with FIN cleared: a fragment that does not end its message.
    static func notFinal(_ frame: [UInt8]) -> [UInt8] {
        var frame = frame
        frame[0] &= 0x7f
        return frame
    }

    /// Opens `/cable/new` on a raw connection, sends `bytes` and returns the close code it gets.
    static func closeCode(after bytes: [UInt8], maxMessageSize: Int? = nil) async throws -> UInt16? {
        try await RelayTest.withRelay({ if let maxMessageSize { $0.maxMessageSize = maxMessageSize } }) {
            _, origin async throws in
            try await RawConnection.with(port: origin.effectivePort) { raw async throws in
                _ = try await raw.openNewTunnel(RelayTest.randomTunnelID())
                try await raw.send(bytes: bytes)
                return try await raw.readCloseCode()
            }
        }
    }

    @Test func continuationWithoutAStartIsAProtocolError() async throws {
        let code = try await Self.closeCode(after: RawConnection.maskedFrame(opcode: 0x0, payload: [1]))
        #expect(code == RelayCloseCode.protocolError.rawValue)
    }

    @Test func newMessageBeforeTheLastOneEndsIsAProtocolError() async throws {
        let first = Self.notFinal(RawConnection.maskedFrame(opcode: 0x2, payload: [1]))
        let code = try await Self.closeCode(after: first + RawConnection.maskedFrame(opcode: 0x2, payload: [2]))
        #expect(code == RelayCloseCode.protocolError.rawValue)
    }

    @Test func fragmentsAboveTheMessageSizeCloseWith1009() async throws {
        let fragment = [UInt8](repeating: 7, count: 100)
        let bytes =
            Self.notFinal(RawConnection.maskedFrame(opcode: 0x2, payload: fragment))
            + RawConnection.maskedFrame(opcode: 0x0, payload: fragment)
        let code = try await Self.closeCode(after: bytes, maxMessageSize: 150)
        #expect(code == RelayCloseCode.messageTooBig.rawValue)
    }

    /// A ping between two fragments is answered at once (RFC 6455 §5.4: control frames may be
    /// injected in the middle of a fragmented message), and the message reaches the peer whole
    /// over a paired tunnel.
    @Test func pingBetweenFragmentsOnAPairedTunnel() async throws {
        try await RelayTest.withRelay { _, origin async throws in
            let tunnelID = RelayTest.randomTunnelID()
            try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, tunnelID)) { phone async throws in
                let routingID = try phone.routingID()
                try await RawConnection.with(port: origin.effectivePort) { raw async throws in
                    try await raw.openConnectTunnel(routingID, tunnelID)
                    try await raw.send(bytes: Self.notFinal(RawConnection.maskedFrame(opcode: 0x2, payload: [1, 2])))
                    try await raw.send(bytes: RawConnection.maskedFrame(opcode: 0x9, payload: [9, 9]))
                    var pong = try await raw.readFrame()
                    while pong.opcode == 0x9 { pong = try await raw.readFrame() }
                    #expect(pong.opcode == 0xA)
                    #expect(pong.payload == [9, 9])
                    try await raw.send(bytes: Self.notFinal(RawConnection.maskedFrame(opcode: 0x0, payload: [3])))
                    try await raw.send(bytes: RawConnection.maskedFrame(opcode: 0x0, payload: [4, 5]))
                    var fromClient = phone.messages.makeAsyncIterator()
                    #expect(try await RelayTest.next(&fromClient) == [1, 2, 3, 4, 5])
                }
            }
        }
    }
}
