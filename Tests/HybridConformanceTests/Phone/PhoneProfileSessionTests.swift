import Crypto
import HybridCore
import TestSupport
import Testing

/// The phone variants of `--profile`, at the level of the core's `AuthenticatorSession`: what each
/// one puts on the wire, opened with the core's single-shot crypter and parsers as a client would.
@Suite struct PhoneProfileSessionTests {
    /// A phone session past the handshake: the phone's actions and the client's read key.
    struct Handshaken {
        var phone: AuthenticatorSession
        var sent: [[UInt8]]
        var readKey: SymmetricKey
        var writeKey: SymmetricKey
    }

    static func handshake(_ configure: (inout AuthenticatorSession.Configuration) -> Void) throws -> Handshaken {
        let identity = P256.KeyAgreement.PrivateKey()
        let secret = try #require(QRSecret(bytes: [UInt8](repeating: 0x42, count: 16)))
        var configuration = AuthenticatorSession.Configuration(
            qrSecret: secret, clientIdentityKey: identity.publicKey,
            domainID: try #require(TunnelDomainID(rawValue: 0)),
            getInfo: [0xA0])
        configure(&configuration)
        var phone = AuthenticatorSession(
            configuration: configuration,
            advertNonce: try #require(AdvertNonce(bytes: [UInt8](repeating: 1, count: 10))),
            ephemeralKey: P256.KeyAgreement.PrivateKey())
        _ = try phone.start()
        guard
            case .startAdvertising(let serviceData) = try phone.tunnelOpened(
                routingID: try #require(RoutingID(bytes: [9, 9, 9])))[0]
        else { throw TestFailure("no advert") }
        let initiator = HandshakeInitiator(
            pattern: .knpsk0(identityKey: identity),
            psk: secret.psk(eidPlaintext: try #require(secret.eidKey.trialDecrypt(serviceData))),
            ephemeralKey: P256.KeyAgreement.PrivateKey())
        let sent = try phone.messageReceived(initiator.makeMessage1()).compactMap { action -> [UInt8]? in
            if case .send(let bytes) = action { return bytes }
            return nil
        }
        let keys = try initiator.processMessage2(sent[0])
        return Handshaken(
            phone: phone, sent: Array(sent.dropFirst()), readKey: keys.responderToInitiatorKey,
            writeKey: keys.initiatorToResponderKey)
    }

    @Test func oldCrypterSealsWithTheLittleEndianNonceAndAD02() throws {
        let session = try Self.handshake { $0.construction = .old }
        let postHandshake = try #require(session.sent.first)
        #expect(throws: TransportError.self) {
            try TransportCrypter.open(postHandshake, key: session.readKey, sequence: 0, construction: .new)
        }
        let plaintext = try TransportCrypter.open(postHandshake, key: session.readKey, sequence: 0, construction: .old)
        #expect(try PostHandshakeMessage(decoding: plaintext).revision == .one)
    }

    @Test func revisionZeroPadsThePostHandshakeMapAndSendsNoUpdate() throws {
        var session = try Self.handshake { $0.revision = .zero }
        #expect(session.sent.count == 1)
        let plaintext = try TransportCrypter.open(
            session.sent[0], key: session.readKey, sequence: 0, construction: .new)
        #expect(plaintext.count == 512)
        #expect(try PostHandshakeMessage(decoding: plaintext).revision == .zero)
        // A revision-0 request has no type byte; the reply has none either.
        let request = try TransportCrypter.seal([0x04], key: session.writeKey, sequence: 0, construction: .new)
        guard case .deliverRequest(.ctap(let bytes)) = try session.phone.messageReceived(request).first else {
            Issue.record("no request delivered")
            return
        }
        #expect(bytes == [0x04])
        guard case .send(let reply) = try session.phone.requestCompleted(.ctap([0x00, 0xA0])).first else {
            Issue.record("no reply")
            return
        }
        #expect(
            try TransportCrypter.open(reply, key: session.readKey, sequence: 1, construction: .new) == [0x00, 0xA0])
        #expect(try session.phone.tunnelClosed().isEmpty)
        #expect(session.phone.isFinished)
    }

    @Test func lateUpdateComesAfterTheShutdown() throws {
        var session = try Self.handshake { $0.sendsUpdateLate = true }
        #expect(session.sent.count == 1)  // the post-handshake message only
        var sequence: UInt32 = 0
        func clientSends(_ plaintext: [UInt8]) throws -> [AuthenticatorSession.Action] {
            defer { sequence += 1 }
            return try session.phone.messageReceived(
                TransportCrypter.seal(plaintext, key: session.writeKey, sequence: sequence, construction: .new))
        }
        _ = try clientSends([0x01, 0x04])
        _ = try session.phone.requestCompleted(.ctap([0x00, 0xA0]))
        let actions = try clientSends([0x00])
        #expect(actions.count == 2)
        guard case .send(let update) = actions.first, case .finish = actions.last else {
            Issue.record("expected the update, then finish: \(actions)")
            return
        }
        // Phone seq: post-handshake 0, reply 1, update 2; 528 bytes like Chromium's padded update.
        #expect(update.count == 528)
        let plaintext = try TransportCrypter.open(update, key: session.readKey, sequence: 2, construction: .new)
        #expect(plaintext.first == HybridMessageType.update.rawValue)
        #expect(try UpdateMessage(decoding: plaintext.dropFirst()).linking == nil)
    }
}
