import Crypto
import HybridCore
import TestSeededRandom
import Testing

/// Post-handshake features (key 3) decide what each side may send: JSON (type 03) only to a phone
/// that offered `"dc"`, CTAP (type 01) only to one that offered `"ctap"` (protocol.md §7.2, §7.8).
@Suite struct SessionFeatureNegotiationTests {
    /// A pair whose phone offers `features`.
    private static func pair(features: [HybridFeature], test: String = #function) -> SessionPair {
        var pair = SessionPair(test: test)
        var random = SeededRandom.forProperty(test + ".phone")
        pair.phone = AuthenticatorSession(
            configuration: .init(
                qrSecret: pair.qrSecret, clientIdentityKey: pair.clientIdentity.publicKey, domainID: .google,
                getInfo: [0xa0], features: features),
            advertNonce: AdvertNonce(bytes: random.bytes(AdvertNonce.byteCount))!, ephemeralKey: .init())
        return pair
    }

    private static let request = Array(
        #"{"origin":"https://example.com","request":{"digital":{"requests":[{"data":{},"protocol":"p"}]}},"requestType":"credential.get"}"#
            .utf8)

    @Test func aDCOnlyPhoneSendsChromiumsPostHandshakeMessage() throws {
        var pair = Self.pair(features: [.digitalCredentials])
        var crypter = try pair.handshakeWithBareInitiator()
        // Chromium's TunnelTransport (v2_authenticator.cc) for a digital-identity transaction:
        // {3: ["dc"]} and no key 1, since getInfo goes out only with kCTAP.
        #expect(try crypter.decrypt(pair.toClient[0]) == [0xa1, 0x03, 0x81, 0x62, 0x64, 0x63])
    }

    @Test func jsonRequestAndReplyOverDC() throws {
        var pair = Self.pair(features: [.digitalCredentials])
        for action in try pair.client.send(.json(Self.request)) { try pair.perform(action) }
        try pair.connect()
        try pair.pump()
        #expect(pair.postHandshake?.effectiveFeatures == [.digitalCredentials])
        #expect(pair.postHandshake?.getInfo == nil)
        #expect(pair.deliveredRequests == [.json(Self.request)])
        let reply = Array(#"{"response":{"digital":{"error":"USER_CANCELED"}}}"#.utf8)
        for action in try pair.phone.requestCompleted(.json(reply)) { try pair.perform(action) }
        try pair.pump()
        #expect(pair.deliveredResponses == [.json(reply)])
        #expect(pair.client.isFinished && pair.phone.isFinished)
    }

    @Test(arguments: [[HybridFeature.ctap], []])
    func clientSendsNoJSONToAPhoneWithoutDC(features: [HybridFeature]) throws {
        var pair = Self.pair(features: features)
        for action in try pair.client.send(.json(Self.request)) { try pair.perform(action) }
        try pair.connect()
        #expect(throws: SessionError.invalidPostHandshake(.lacksFeature(.digitalCredentials))) { try pair.pump() }
        #expect(pair.toPhone.isEmpty, "nothing after msg1 reached the phone")
        #expect(pair.deliveredRequests.isEmpty)
    }

    @Test func clientSendsNoCTAPToADCOnlyPhone() throws {
        var pair = Self.pair(features: [.digitalCredentials])
        try pair.connect()
        try pair.pump()
        #expect(throws: SessionError.invalidPostHandshake(.lacksFeature(.ctap))) {
            _ = try pair.client.send(.ctap([0x04]))
        }
    }

    @Test func phoneWithBothFeaturesServesEither() throws {
        for request in [HybridPayload.json(Self.request), .ctap([0x02, 0xa0])] {
            var pair = Self.pair(features: [.ctap, .digitalCredentials], test: "both \(request.messageType)")
            for action in try pair.client.send(request) { try pair.perform(action) }
            try pair.connect()
            try pair.pump()
            #expect(pair.deliveredRequests == [request])
        }
    }

    @Test func phoneRefusesJSONItDidNotOffer() throws {
        var pair = Self.pair(features: [.ctap])
        var crypter = try pair.handshakeWithBareInitiator()
        let message = try crypter.encrypt([0x03] + Self.request)
        #expect(throws: SessionError.invalidFrame(.featureNotOffered(.digitalCredentials))) {
            _ = try pair.phone.messageReceived(message)
        }
    }

    @Test(arguments: [[UInt8]([0x04]), [0x02, 0xa0]])
    func aDCOnlyPhoneRefusesCTAP(request: [UInt8]) throws {
        var pair = Self.pair(features: [.digitalCredentials])
        var crypter = try pair.handshakeWithBareInitiator()
        let message = try crypter.encrypt([0x01] + request)
        #expect(throws: SessionError.invalidFrame(.featureNotOffered(.ctap))) {
            _ = try pair.phone.messageReceived(message)
        }
    }
}
