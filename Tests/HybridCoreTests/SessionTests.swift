import Crypto
import HybridCore
import TestSeededRandom
import TestVectorFiles
import Testing

/// A client and an authenticator session wired back to back in memory (after h11's
/// ConnectionPair): no sockets, no sleeps, random keys.
struct SessionPair {
    var client: ClientSession
    var phone: AuthenticatorSession
    let clientIdentity = P256.KeyAgreement.PrivateKey()
    let qrSecret: QRSecret
    var advertisedServiceData: [UInt8] = []
    var toPhone: [[UInt8]] = []
    var toClient: [[UInt8]] = []
    var deliveredRequests: [HybridPayload] = []
    var deliveredResponses: [HybridPayload] = []
    var postHandshake: PostHandshakeMessage?
    var clientFinished = false
    /// Each update the client accepted, with its verified linking info.
    var updates: [LinkingInfo?] = []
    var phoneFinished = false

    /// The QR secret and advert nonce are seeded (the seed printed under `test`'s name).
    init(phoneIdentity: P256.KeyAgreement.PublicKey? = nil, getInfo: [UInt8] = [0xa0], test: String = #function) {
        var random = SeededRandom.forProperty(test)
        qrSecret = random.secret()
        client = ClientSession(
            configuration: .init(identityKey: clientIdentity, qrSecret: qrSecret), ephemeralKey: .init())
        phone = AuthenticatorSession(
            configuration: .init(
                qrSecret: qrSecret, clientIdentityKey: phoneIdentity ?? clientIdentity.publicKey, domainID: .google,
                getInfo: getInfo),
            advertNonce: AdvertNonce(bytes: random.bytes(AdvertNonce.byteCount))!, ephemeralKey: .init())
    }

    /// Runs the phone up to advertising and the client up to its first handshake message.
    mutating func connect() throws {
        for action in try phone.start() { try perform(action) }
        for action in try phone.tunnelOpened(routingID: RoutingID(bytes: [1, 2, 3])!) { try perform(action) }
        var connected = false
        for action in client.advertReceived(serviceData: advertisedServiceData) {
            if case .connectTunnel = action { connected = true }
        }
        #expect(connected)
        for action in try client.tunnelOpened() { try perform(action) }
    }

    /// Delivers queued messages in both directions until both queues are empty.
    mutating func pump() throws {
        while !toPhone.isEmpty || !toClient.isEmpty {
            if !toPhone.isEmpty {
                for action in try phone.messageReceived(toPhone.removeFirst()) { try perform(action) }
            }
            if !toClient.isEmpty {
                for action in try client.messageReceived(toClient.removeFirst()) { try perform(action) }
            }
        }
    }

    /// Runs the phone up to advertising and completes the handshake with a bare
    /// ``HandshakeInitiator`` instead of ``ClientSession``, so that a test can send what the client
    /// session never does. Returns the initiator's crypter.
    mutating func handshakeWithBareInitiator() throws -> TransportCrypter {
        for action in try phone.start() { try perform(action) }
        for action in try phone.tunnelOpened(routingID: RoutingID(bytes: [1, 2, 3])!) { try perform(action) }
        let advert = try #require(qrSecret.eidKey.trialDecrypt(advertisedServiceData))
        let initiator = HandshakeInitiator(
            pattern: .knpsk0(identityKey: clientIdentity), psk: qrSecret.psk(eidPlaintext: advert),
            ephemeralKey: .init())
        for action in try phone.messageReceived(initiator.makeMessage1()) { try perform(action) }
        return try initiator.processMessage2(toClient.removeFirst()).crypter(for: .initiator)
    }

    mutating func perform(_ action: AuthenticatorSession.Action) throws {
        switch action {
        case .openTunnel: break
        case .startAdvertising(let serviceData): advertisedServiceData = serviceData
        case .stopAdvertising: break
        case .send(let bytes): toClient.append(bytes)
        case .deliverRequest(let request): deliveredRequests.append(request)
        case .finish: phoneFinished = true
        }
    }

    mutating func perform(_ action: ClientSession.Action) throws {
        switch action {
        case .connectTunnel: break
        case .send(let bytes): toPhone.append(bytes)
        case .handshakeCompleted(let message): postHandshake = message
        case .deliverResponse(let response): deliveredResponses.append(response)
        case .updateReceived(let linking): updates.append(linking)
        case .finish: clientFinished = true
        }
    }
}

@Suite struct SessionTests {
    @Test func sharedVectors() { VectorFiles.expectAllPass("session.json") }

    @Test func wholeCeremonyInMemory() throws {
        let getInfo = CBOREncoder.encode(
            .map([1: ["FIDO_2_0", "FIDO_2_1"], 3: .bytes([UInt8](repeating: 7, count: 16))]))
        var pair = SessionPair(getInfo: getInfo)
        let request: [UInt8] =
            [0x02] + CBOREncoder.encode(.map([1: "example.com", 2: .bytes([UInt8](repeating: 9, count: 32))]))
        for action in try pair.client.send(.ctap(request)) { try pair.perform(action) }
        try pair.connect()
        try pair.pump()
        #expect(pair.postHandshake?.getInfo == getInfo)
        #expect(pair.deliveredRequests == [.ctap(request)])
        #expect(pair.client.handshakeHash != nil && pair.client.handshakeHash == pair.phone.handshakeHash)

        let response: [UInt8] = [0x00] + CBOREncoder.encode(.map([6: true]))
        for action in try pair.phone.requestCompleted(.ctap(response)) { try pair.perform(action) }
        try pair.pump()
        #expect(pair.deliveredResponses == [.ctap(response)])
        #expect(pair.clientFinished && pair.phoneFinished)
        #expect(pair.client.isFinished && pair.phone.isFinished)
    }

    /// The phone answers msg1 before it switches its advert off: stopping can take a round trip
    /// through bluetoothd, and the client's L2CAP channel gives the first message a deadline
    /// (Chromium's phone writes msg2 at once as well).
    @Test func thePhoneAnswersTheHandshakeBeforeItStopsAdvertising() throws {
        var pair = SessionPair()
        try pair.connect()
        let message1 = try #require(pair.toPhone.first)
        let actions = try pair.phone.messageReceived(message1)
        let sends = actions.indices.filter { if case .send = actions[$0] { true } else { false } }
        let stops = actions.indices.filter { if case .stopAdvertising = actions[$0] { true } else { false } }
        #expect(sends.count >= 2, "msg2 and the post-handshake message at least: \(actions)")
        #expect(stops == [actions.count - 1], "one stop, after every message: \(actions)")
    }

    @Test func requestSentAfterHandshakeIsNotQueued() throws {
        var pair = SessionPair()
        try pair.connect()
        try pair.pump()
        #expect(pair.postHandshake != nil && pair.toPhone.isEmpty)
        for action in try pair.client.send(.ctap([0x04])) { try pair.perform(action) }
        try pair.pump()
        #expect(pair.deliveredRequests == [.ctap([0x04])])
    }

    @Test func advertsForOtherQRCodesAreIgnored() throws {
        var pair = SessionPair()
        for action in try pair.phone.start() { try pair.perform(action) }
        for action in try pair.phone.tunnelOpened(routingID: RoutingID(bytes: [1, 2, 3])!) { try pair.perform(action) }
        var stranger = SessionPair()
        for action in try stranger.phone.start() { try stranger.perform(action) }
        for action in try stranger.phone.tunnelOpened(routingID: RoutingID(bytes: [4, 5, 6])!) {
            try stranger.perform(action)
        }

        #expect(pair.client.advertReceived(serviceData: stranger.advertisedServiceData).isEmpty)
        #expect(pair.client.advertReceived(serviceData: Array(pair.advertisedServiceData.dropLast())).isEmpty)
        #expect(pair.client.advertReceived(serviceData: pair.advertisedServiceData).count == 1)
        // Once one advert matched, later ones (even the same) are ignored.
        #expect(pair.client.advertReceived(serviceData: pair.advertisedServiceData).isEmpty)
        #expect(pair.client.advert?.routingID == RoutingID(bytes: [1, 2, 3]))
    }

    @Test func wrongClientIdentityFailsTheResponder() throws {
        var pair = SessionPair(phoneIdentity: P256.KeyAgreement.PrivateKey().publicKey)
        try pair.connect()
        #expect(throws: SessionError.handshake(.authenticationFailed)) { try pair.pump() }
    }

    @Test func corruptedFrameEndsTheSession() throws {
        var pair = SessionPair()
        for action in try pair.client.send(.ctap([0x04])) { try pair.perform(action) }
        try pair.connect()
        // msg1 → phone; its msg2, post-handshake and update come back.
        for action in try pair.phone.messageReceived(pair.toPhone.removeFirst()) { try pair.perform(action) }
        for action in try pair.client.messageReceived(pair.toClient.removeFirst()) { try pair.perform(action) }
        var postHandshake = pair.toClient.removeFirst()
        postHandshake[5] ^= 0x01
        #expect(throws: SessionError.transport(.authenticationFailed)) {
            try pair.client.messageReceived(postHandshake)
        }
        #expect(throws: SessionError.self) { try pair.client.messageReceived(pair.toClient.removeFirst()) }
    }

    /// A pre-2022 Chromium phone seals with the old construction (§10.3). The phone side here is the
    /// bare responder with an old-construction crypter, whose nonce/AD layout the crypter vectors pin.
    @Test func phoneUsingTheOldConstructionIsFollowedBothWays() throws {
        var phone = try ScriptedPhone()
        phone.crypter = phone.crypter.restarted(with: .old)
        #expect(phone.crypter.construction == .old)

        let postHandshake = PostHandshakeMessage(getInfo: [0xa0], features: [.ctap])
        try phone.send(postHandshake.encoded())
        #expect(phone.pair.postHandshake == postHandshake)
        // The queued request went out in the old construction: the old phone opens it.
        let request = try #require(try phone.received().first)
        #expect(try HybridFrame(decoding: request, revision: .one) == HybridPayload.ctap([0x04]).frame)

        try phone.send(HybridPayload.ctap([0x00, 0xa0]).frame)
        #expect(phone.pair.deliveredResponses == [.ctap([0x00, 0xa0])])
        #expect(phone.pair.client.isFinished)
    }

    @Test func postHandshakeThatOpensWithNeitherConstructionFails() throws {
        var pair = SessionPair()
        try pair.connect()
        for action in try pair.phone.messageReceived(pair.toPhone.removeFirst()) { try pair.perform(action) }
        for action in try pair.client.messageReceived(pair.toClient.removeFirst()) { try pair.perform(action) }
        #expect(throws: SessionError.transport(.authenticationFailed)) {
            try pair.client.messageReceived([UInt8](repeating: 0x5a, count: 64))
        }
    }

    /// The phone ignores a client's update but, as Chromium's does, requires it to be CBOR (§7.3).
    @Test func clientUpdatesMustBeCBOR() throws {
        var pair = SessionPair()
        // A bare initiator plays the client, so that it can send what ClientSession never does.
        var crypter = try pair.handshakeWithBareInitiator()

        let update = HybridFrame(type: .update, payload: CBOREncoder.encode(.map([1: .map([:]), 7: "x"])))
        #expect(try pair.phone.messageReceived(crypter.encrypt(update.encoded(revision: .one))).isEmpty)
        let notCBOR = HybridFrame(type: .update, payload: [0xa1, 0x01])
        #expect(throws: SessionError.self) {
            try pair.phone.messageReceived(crypter.encrypt(notCBOR.encoded(revision: .one)))
        }
    }

    /// The judge's walk to the sequence limit, three steps long: after the post-handshake message the
    /// client seals `emptyUpdatesBeforeRequest` type-02 `{}` updates (protocol.md §7.3), which the
    /// phone reads without delivering anything; the request then travels with sequence 3, so a
    /// phone that never read the updates cannot open it.
    @Test func emptyUpdatesBeforeTheRequestAdvanceTheSequence() throws {
        for delivered in [true, false] {
            var pair = SessionPair(test: "emptyUpdatesBeforeTheRequestAdvanceTheSequence-\(delivered)")
            pair.client.emptyUpdatesBeforeRequest = 3
            #expect(throws: SessionError.self) { try pair.client.nextEmptyUpdate() }  // before the handshake
            try pair.connect()
            try pair.pump()
            #expect(pair.postHandshake != nil)
            var updates: [[UInt8]] = []
            while let update = try pair.client.nextEmptyUpdate() { updates.append(update) }
            #expect(updates.count == 3 && Set(updates).count == 3)
            #expect(updates.allSatisfy { $0.count == 48 })
            #expect(try pair.client.nextEmptyUpdate() == nil)
            if delivered { pair.toPhone += updates }
            for action in try pair.client.send(.ctap([0x04])) { try pair.perform(action) }
            if delivered {
                try pair.pump()
                #expect(pair.deliveredRequests == [.ctap([0x04])])
            } else {
                #expect(throws: SessionError.self) { try pair.pump() }
                #expect(pair.deliveredRequests.isEmpty)
            }
        }
    }

    /// One QR code buys one request: a scripted client (a bare initiator, with request bytes
    /// written from CTAP 2.1 §6.2.2, type byte 01 from protocol.md §7.3) gets a getInfo and one
    /// getAssertion answered; a second getAssertion fails the session, so the driver closes the
    /// tunnel instead of signing again.
    @Test func phoneServesOneRequestPerQRCode() throws {
        var pair = SessionPair()
        var crypter = try pair.handshakeWithBareInitiator()

        // getInfo (type 01, command 04): answered, and it does not count.
        for action in try pair.phone.messageReceived(crypter.encrypt([0x01, 0x04])) { try pair.perform(action) }
        _ = try pair.phone.requestCompleted(.ctap([0x00, 0xa0]))
        // getAssertion {1: "example.com", 2: 32 × 0x11, 5: {"up": false}}, twice.
        let getAssertion: [UInt8] =
            [0x01, 0x02, 0xa3, 0x01, 0x6b] + Array("example.com".utf8) + [0x02, 0x58, 0x20]
            + [UInt8](repeating: 0x11, count: 32) + [0x05, 0xa1, 0x62, 0x75, 0x70, 0xf4]
        for action in try pair.phone.messageReceived(crypter.encrypt(getAssertion)) { try pair.perform(action) }
        _ = try pair.phone.requestCompleted(.ctap([0x2b]))
        #expect(throws: SessionError.invalidFrame(.moreThanOneRequest)) {
            try pair.phone.messageReceived(crypter.encrypt(getAssertion))
        }
        #expect(pair.deliveredRequests.count == 2)
        #expect(!pair.phone.isFinished)
    }

    @Test func eventsOutOfOrderAreTypedErrors() throws {
        var pair = SessionPair()
        #expect(throws: SessionError.outOfOrder(.event(.tunnelOpened, state: "idle"))) {
            try pair.phone.tunnelOpened(routingID: RoutingID(bytes: [0, 0, 0])!)
        }
        #expect(throws: SessionError.outOfOrder(.event(.messageReceived, state: "idle"))) {
            try pair.phone.messageReceived([1, 2, 3])
        }
        // A failed message ends the session: the phone is now in state "failed".
        #expect(throws: SessionError.outOfOrder(.event(.requestCompleted, state: "failed"))) {
            try pair.phone.requestCompleted(.ctap([0]))
        }
        #expect(throws: SessionError.outOfOrder(.event(.tunnelOpened, state: "awaitingAdvert"))) {
            try pair.client.tunnelOpened()
        }
        #expect(throws: SessionError.outOfOrder(.event(.messageReceived, state: "awaitingAdvert"))) {
            try pair.client.messageReceived([0])
        }
        var fresh = SessionPair()
        _ = try fresh.phone.start()
        #expect(throws: SessionError.outOfOrder(.event(.start, state: "openingTunnel"))) { try fresh.phone.start() }
        #expect(throws: SessionError.tunnelClosedEarly) { try fresh.phone.tunnelClosed() }
    }

    @Test func garbageNeverCrashesEitherSide() throws {
        var random = SeededRandom.forProperty()
        for length in [0, 1, 16, 64, 65, 80, 81, 82, 200] {
            var pair = SessionPair()
            try pair.connect()
            let garbage = random.bytes(length)
            #expect(throws: SessionError.self) { try pair.phone.messageReceived(garbage) }
            var other = SessionPair()
            try other.connect()
            #expect(throws: SessionError.self) { try other.client.messageReceived(garbage) }
        }
    }
}
