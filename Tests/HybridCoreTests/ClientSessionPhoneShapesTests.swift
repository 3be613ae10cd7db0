import Crypto
import HybridCore
import Testing

/// A phone that answers a ``ClientSession`` through the bare Noise responder and a crypter, so a
/// test can send exactly the messages a given real phone sends (protocol.md §7.2–7.5, §10.2).
struct ScriptedPhone {
    var pair = SessionPair()
    var crypter: TransportCrypter
    let handshakeHash: [UInt8]

    /// Connects a client that has `request` queued, if any, and answers its handshake.
    init(queuing request: HybridPayload? = .ctap([0x04])) throws {
        if let request {
            for action in try pair.client.send(request) { try pair.perform(action) }
        }
        try pair.connect()
        let (message2, result) = try HandshakeResponder.respond(
            to: pair.toPhone.removeFirst(), pattern: .knpsk0(initiatorStaticKey: pair.clientIdentity.publicKey),
            psk: pair.qrSecret.psk(eidPlaintext: try #require(pair.client.advert)), ephemeralKey: .init())
        crypter = result.crypter(for: .responder)
        handshakeHash = result.handshakeHash
        for action in try pair.client.messageReceived(message2) { try pair.perform(action) }
    }

    /// Encrypts `plaintext` and hands it to the client.
    mutating func send(_ plaintext: [UInt8]) throws {
        let message = try crypter.encrypt(plaintext)
        for action in try pair.client.messageReceived(message) { try pair.perform(action) }
    }

    /// Sends a revision-1 frame.
    mutating func send(_ frame: HybridFrame) throws { try send(frame.encoded(revision: .one)) }

    /// Decrypts what the client sent the phone, in order.
    mutating func received() throws -> [[UInt8]] {
        defer { pair.toPhone.removeAll() }
        return try pair.toPhone.map { try crypter.decrypt($0) }
    }

    /// Linking info signed for this handshake, as a Chromium phone builds it (§7.6).
    func linkingInfo(signedFor clientIdentity: P256.KeyAgreement.PublicKey? = nil) -> LinkingInfo {
        LinkingInfo(
            contactID: [1, 2, 3], pairingID: [UInt8](repeating: 4, count: 8),
            linkSecret: [UInt8](repeating: 5, count: 32), identityKey: .init(), phoneName: "Pixel 6a",
            clientIdentityKey: clientIdentity ?? pair.clientIdentity.publicKey, handshakeHash: handshakeHash)
    }
}

@Suite struct ClientSessionPhoneShapesTests {
    static let reply = HybridPayload.ctap([0x00, 0xa0])

    /// iPhone (zenn, 2026): features `["ctap","dc"]`, no update, the reply at phone seq 1 (§7.2, §7.4).
    @Test func iPhoneShape() throws {
        var phone = try ScriptedPhone()
        try phone.send(PostHandshakeMessage(getInfo: [0xa0], features: [.ctap, .digitalCredentials]).encoded())
        #expect(phone.pair.postHandshake?.effectiveFeatures == [.ctap, .digitalCredentials])
        #expect(try phone.received() == [[0x01, 0x04]])
        try phone.send(Self.reply.frame)
        #expect(phone.pair.deliveredResponses == [Self.reply])
        #expect(try phone.received() == [[0x00]])
        #expect(phone.pair.client.isFinished)
    }

    /// Chromium Android: post-handshake, then a 512-byte padded update without linking, then the
    /// reply at seq 2 (§7.7). A late update after shutdown is still accepted (§7.5, §10.8 item 7).
    @Test func androidShapeWithLateLinkingUpdate() throws {
        var phone = try ScriptedPhone()
        try phone.send(PostHandshakeMessage(getInfo: [0xa0], features: [.ctap]).encoded())
        try phone.send(UpdateMessage(linking: nil).frame())
        try phone.send(Self.reply.frame)
        #expect(phone.pair.deliveredResponses == [Self.reply])
        #expect(try phone.received() == [[0x01, 0x04], [0x00]])

        #expect(phone.pair.updates.count == 1 && phone.pair.updates[0] == nil)

        try phone.send(UpdateMessage(linking: phone.linkingInfo()).frame())
        // The late update goes the same way as the early one, its linking info verified.
        #expect(phone.pair.updates.count == 2)
        let late = try #require(phone.pair.updates.last ?? nil)
        #expect(late.phoneName == "Pixel 6a" && late.pairingID == [UInt8](repeating: 4, count: 8))
        #expect(phone.pair.client.isFinished)
        #expect(try phone.pair.client.tunnelClosed().isEmpty)
    }

    /// After shutdown, late replies are discarded (§7.3) and an invalid late update is reported
    /// without undoing the delivered reply.
    @Test func lateMessagesNeverUndoTheReply() throws {
        var phone = try ScriptedPhone()
        try phone.send(PostHandshakeMessage(getInfo: [0xa0]).encoded())
        try phone.send(Self.reply.frame)
        try phone.send(Self.reply.frame)
        #expect(phone.pair.deliveredResponses == [Self.reply])

        let forged = phone.linkingInfo(signedFor: P256.KeyAgreement.PrivateKey().publicKey)
        #expect(throws: SessionError.invalidFrame(.update(.invalidSignature))) {
            try phone.send(UpdateMessage(linking: forged).frame())
        }
        #expect(throws: SessionError.transport(.authenticationFailed)) {
            try phone.pair.client.messageReceived([UInt8](repeating: 0, count: 48))
        }
        #expect(phone.pair.client.isFinished)
        #expect(try phone.pair.client.tunnelClosed().isEmpty)
    }

    /// Revision 0: a padded post-handshake map, then untyped CTAP both ways and no shutdown (§10.2).
    @Test(arguments: RevisionZeroPadding.Trailer.allCases)
    func revisionZeroPhone(trailer: RevisionZeroPadding.Trailer) throws {
        var phone = try ScriptedPhone()
        let map = CBOREncoder.encode(.map([1: .bytes([0xa0])]))
        try phone.send(RevisionZeroPadding.pad(map, trailer: trailer))
        #expect(phone.pair.postHandshake?.revision == .zero)
        #expect(try phone.received() == [[0x04]])
        try phone.send([0x00, 0xa0])
        #expect(phone.pair.deliveredResponses == [Self.reply])
        #expect(try phone.received().isEmpty)
        #expect(phone.pair.client.isFinished)
    }

    /// Revision 0 has no message types, so a JSON request cannot go to such a phone: a typed
    /// error, not a trap.
    @Test func jsonRequestToARevisionZeroPhoneIsRefused() throws {
        var phone = try ScriptedPhone(queuing: .json(Array("{}".utf8)))
        let padded = RevisionZeroPadding.pad(CBOREncoder.encode(.map([1: .bytes([0xa0])])))
        #expect(throws: SessionError.invalidPostHandshake(.needsRevisionOne(.json))) { try phone.send(padded) }
        #expect(try phone.received().isEmpty)
        #expect(!phone.pair.client.isFinished)
    }

    /// Legacy linking at post-handshake key 2 must parse and verify on a QR connection (§7.2 check 7).
    @Test func linkingInThePostHandshakeMessageIsVerified() throws {
        var phone = try ScriptedPhone()
        let linking = phone.linkingInfo().cborValue
        try phone.send(PostHandshakeMessage(getInfo: [0xa0], linking: linking).encoded())
        #expect(phone.pair.postHandshake?.linking == linking)

        var forgedPhone = try ScriptedPhone()
        let forged = forgedPhone.linkingInfo(signedFor: P256.KeyAgreement.PrivateKey().publicKey).cborValue
        #expect(throws: SessionError.invalidPostHandshake(.linking(.invalidSignature))) {
            try forgedPhone.send(PostHandshakeMessage(getInfo: [0xa0], linking: forged).encoded())
        }
        var brokenPhone = try ScriptedPhone()
        #expect(throws: SessionError.invalidPostHandshake(.linking(.missingKey(2)))) {
            try brokenPhone.send(PostHandshakeMessage(getInfo: [0xa0], linking: .map([1: .bytes([1])])).encoded())
        }
        #expect(try brokenPhone.received().isEmpty)
    }

    /// What the client enforces from the phone (§7.3, §10.7).
    @Test(arguments: [
        (HybridFrame.shutdown, InvalidFrameReason.authenticatorShutdown),
        (HybridPayload.json(Array("{}".utf8)).frame, .replyTypeDiffersFromRequest),
        (HybridFrame(type: .update, payload: CBOREncoder.encode(.map([1: 1]))), .update(.wrongType(key: 1))),
    ])
    func phoneMessagesTheClientRefuses(frame: HybridFrame, reason: InvalidFrameReason) throws {
        var phone = try ScriptedPhone()
        try phone.send(PostHandshakeMessage(getInfo: [0xa0]).encoded())
        #expect(throws: SessionError.invalidFrame(reason)) { try phone.send(frame) }
        #expect(!phone.pair.client.isFinished)
    }

    /// After the reply (§7.3): a late reply is discarded, but a shutdown is still one only a
    /// client may send.
    @Test func shutdownFromThePhoneAfterTheReplyIsRefused() throws {
        var phone = try ScriptedPhone()
        try phone.send(PostHandshakeMessage(getInfo: [0xa0]).encoded())
        try phone.send(Self.reply.frame)
        #expect(phone.pair.deliveredResponses.count == 1)
        try phone.send(Self.reply.frame)
        #expect(phone.pair.deliveredResponses.count == 1)
        #expect(throws: SessionError.invalidFrame(.authenticatorShutdown)) { try phone.send(HybridFrame.shutdown) }
    }

    @Test func unsolicitedReplyIsRefused() throws {
        var phone = try ScriptedPhone(queuing: nil)
        try phone.send(PostHandshakeMessage(getInfo: [0xa0]).encoded())
        #expect(throws: SessionError.invalidFrame(.unsolicited(.ctap))) { try phone.send(Self.reply.frame) }
        #expect(phone.pair.deliveredResponses.isEmpty)
    }
}
