import Crypto
import Foundation
import HybridCore
import TestVectorFiles
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
    /// The reply as a revision-1 frame on the wire: type `01` (CTAP), status 0, empty map (§7.3).
    static let replyFrame: [UInt8] = [0x01, 0x00, 0xa0]

    /// A captured post-handshake plaintext from `postHandshake.json`.
    static func capturedPostHandshake(_ name: String) throws -> [UInt8] {
        let data = try Data(contentsOf: URL(fileURLWithPath: VectorFiles.path("postHandshake.json")))
        let file = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let cases = try #require(file["cases"] as? [[String: Any]])
        let found = cases.first { $0["name"] as? String == name }
        let hex = try #require(found?["plaintext"] as? String, "no case \(name) in postHandshake.json")
        return try Hex.decode(hex)
    }

    /// iOS 16 as webauthn-rs captured it: `{1: getInfo}` and no key 3 (features default to
    /// ["ctap"]), no update, the reply at phone seq 1 (§7.2, §7.4).
    @Test func iPhoneShape() throws {
        var phone = try ScriptedPhone()
        try phone.send(try Self.capturedPostHandshake("webauthn-rs-ios16"))
        #expect(phone.pair.postHandshake?.effectiveFeatures == [.ctap])
        #expect(try phone.received() == [[0x01, 0x04]])
        try phone.send(Self.replyFrame)
        #expect(phone.pair.deliveredResponses == [Self.reply])
        #expect(try phone.received() == [[0x00]])
        #expect(phone.pair.client.isFinished)
    }

    /// The iPhone of the zenn transcript (protocol.md §7.2 table, 2026): the iOS getInfo with key 3
    /// `["ctap", "dc"]`, written out here as CBOR (`03 82 64 "ctap" 62 "dc"`) around the captured
    /// getInfo, since the transcript itself is not among the vectors.
    @Test func iPhoneWithDigitalCredentialsShape() throws {
        let ios16 = try Self.capturedPostHandshake("webauthn-rs-ios16")
        // `a1 01 58 3a <getInfo>` → `a2 01 58 3a <getInfo> 03 82 64 63746170 62 6463`.
        let message: [UInt8] =
            [0xa2] + ios16.dropFirst() + [0x03, 0x82, 0x64, 0x63, 0x74, 0x61, 0x70, 0x62, 0x64, 0x63]
        var phone = try ScriptedPhone()
        try phone.send(message)
        #expect(phone.pair.postHandshake?.effectiveFeatures == [.ctap, .digitalCredentials])
        #expect(try phone.received() == [[0x01, 0x04]])
        try phone.send(Self.replyFrame)
        #expect(phone.pair.deliveredResponses == [Self.reply])
        #expect(phone.pair.client.isFinished)
    }

    /// Chromium Android: the captured post-handshake (webauthn-rs), then the update Chromium always
    /// sends without linking (§7.4: `02` + `{0: 492 zero bytes}`, which the crypter pads to 512),
    /// then the reply at seq 2 (§7.7). A late update after shutdown is still accepted (§7.5, §10.8
    /// item 7); its linking info is signed over this session's handshake hash, so it is built here.
    @Test func androidShapeWithLateLinkingUpdate() throws {
        var phone = try ScriptedPhone()
        try phone.send(try Self.capturedPostHandshake("webauthn-rs-android-chrome"))
        let update: [UInt8] = [0x02, 0xa1, 0x00, 0x59, 0x01, 0xec] + [UInt8](repeating: 0, count: 492)
        try phone.send(update)
        try phone.send(Self.replyFrame)
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
        try phone.send(try Self.capturedPostHandshake("webauthn-rs-android-chrome"))
        try phone.send(Self.replyFrame)
        try phone.send(Self.replyFrame)
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

    /// Revision 0: the iOS 16 post-handshake padded as Chromium-era phones did (postHandshake.json,
    /// 16- and 8-bit trailers), then untyped CTAP both ways and no shutdown (§10.2).
    @Test(arguments: ["revision0-ios16-padded16", "revision0-ios16-padded8"])
    func revisionZeroPhone(vector: String) throws {
        var phone = try ScriptedPhone()
        try phone.send(try Self.capturedPostHandshake(vector))
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
        let padded = try Self.capturedPostHandshake("revision0-ios16-padded16")
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
        try phone.send(try Self.capturedPostHandshake("webauthn-rs-android-chrome"))
        #expect(throws: SessionError.invalidFrame(reason)) { try phone.send(frame) }
        #expect(!phone.pair.client.isFinished)
    }

    /// After the reply (§7.3): a late reply is discarded, but a shutdown is still one only a
    /// client may send.
    @Test func shutdownFromThePhoneAfterTheReplyIsRefused() throws {
        var phone = try ScriptedPhone()
        try phone.send(try Self.capturedPostHandshake("webauthn-rs-android-chrome"))
        try phone.send(Self.replyFrame)
        #expect(phone.pair.deliveredResponses.count == 1)
        try phone.send(Self.replyFrame)
        #expect(phone.pair.deliveredResponses.count == 1)
        #expect(throws: SessionError.invalidFrame(.authenticatorShutdown)) { try phone.send(HybridFrame.shutdown) }
    }

    @Test func unsolicitedReplyIsRefused() throws {
        var phone = try ScriptedPhone(queuing: nil)
        try phone.send(try Self.capturedPostHandshake("webauthn-rs-android-chrome"))
        #expect(throws: SessionError.invalidFrame(.unsolicited(.ctap))) { try phone.send(Self.replyFrame) }
        #expect(phone.pair.deliveredResponses.isEmpty)
    }
}
