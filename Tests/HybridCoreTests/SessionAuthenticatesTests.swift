import Crypto
import HybridCore
import Testing

/// `authenticates(_:)`, what the BLE L2CAP deframer asks to find where a message ends (protocol.md
/// §10.9): a message that opens under the session's keys is whole even when the session then
/// refuses it, so that a rule-breaking message is delivered and refused at once rather than taken
/// for part of a longer one; a cut-short, altered or foreign message is not whole.
@Suite struct SessionAuthenticatesTests {
    static let request: [UInt8] = [0x01, 0x02] + CBOREncoder.encode(.map([1: "example.com"]))

    @Test func aSecondRequestIsWholeAndThenRefused() throws {
        var pair = SessionPair()
        var crypter = try pair.handshakeWithBareInitiator()
        for action in try pair.phone.messageReceived(try crypter.encrypt(Self.request)) { try pair.perform(action) }
        #expect(pair.deliveredRequests.count == 1)
        for action in try pair.phone.requestCompleted(.ctap([0x00, 0xA0])) { try pair.perform(action) }

        let second = try crypter.encrypt(Self.request)
        #expect(pair.phone.authenticates(second))
        #expect(!pair.phone.authenticates(Array(second.dropLast())))
        var altered = second
        altered[altered.count / 2] ^= 0x01
        #expect(!pair.phone.authenticates(altered))
        var strangerPair = SessionPair(test: "stranger")
        var stranger = try strangerPair.handshakeWithBareInitiator()
        #expect(!pair.phone.authenticates(try stranger.encrypt(Self.request)))
        // Asking changes nothing: the message still opens, and the session refuses it.
        #expect(throws: SessionError.self) { _ = try pair.phone.messageReceived(second) }
    }

    @Test func duringTheHandshakeOnlyAMessageTheHandshakeAcceptsIsWhole() throws {
        var pair = SessionPair()
        try pair.connect()
        let message1 = try #require(pair.toPhone.first)
        #expect(pair.phone.authenticates(message1))
        #expect(!pair.phone.authenticates(Array(message1.dropLast())))
        #expect(!pair.phone.authenticates(message1 + [0x0D, 0x0A]))
        _ = try pair.phone.messageReceived(message1)
    }

    @Test func theClientsSideAsWell() throws {
        var pair = SessionPair()
        for action in try pair.client.send(.ctap(Self.request)) { try pair.perform(action) }
        try pair.connect()
        let message1 = try #require(pair.toPhone.first)
        pair.toPhone.removeFirst()
        for action in try pair.phone.messageReceived(message1) { try pair.perform(action) }
        let message2 = try #require(pair.toClient.first)
        #expect(pair.client.authenticates(message2))
        #expect(!pair.client.authenticates(Array(message2.dropLast())))
        try pair.pump()
        for action in try pair.phone.requestCompleted(.ctap([0x00, 0xA0])) { try pair.perform(action) }
        let reply = try #require(pair.toClient.first)
        #expect(pair.client.authenticates(reply))
        #expect(!pair.client.authenticates(Array(reply.dropFirst())))
    }
}
