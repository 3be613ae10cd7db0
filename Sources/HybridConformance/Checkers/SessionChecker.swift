import Crypto
import HybridCore

/// `session` (SCHEMA.md §4.22): whole transcripts.
///
/// QR flow: both state machines are driven with the transcript's pinned keys; every frame each
/// side sends must equal the transcript's ciphertext, and every frame it receives must be
/// accepted. A captured session (no `responderEphemeralPrivate`) checks the client side only. When
/// the transcript holds the phone's reply, the client must deliver it and then send shutdown (a
/// capture that ends at the reply has no shutdown recorded; the client's is then not compared), and
/// the phone is given that reply to send. Linked flow: the linked-flow derivations and the NKpsk0
/// handshake are checked piece by piece (the sessions implement the QR flow only).
struct SessionChecker: VectorKindChecker {
    let kind = "session"
    let definesInvalidCases = false

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let transcript = try SessionTranscript(testCase)
        switch try testCase.string("flow") {
        case "qr":
            try checkClient(transcript)
            if transcript.handshake.has("responderEphemeralPrivate") { try checkAuthenticator(transcript) }
        case "linked":
            try checkLinkedFlow(transcript)
        case let flow:
            throw VectorMismatch("unknown flow \(flow)")
        }
    }

    private func checkClient(_ t: SessionTranscript) throws(VectorMismatch) {
        let qr = try Expect.success("QR parse", classify: vectorErrorClass) {
            try QRCodePayload(url: t.qr.string("url"))
        }
        let identityKey = try t.privateKey(t.qr, "identityPrivateKey")
        try Expect.bytes("QR identity key", qr.uncompressedPublicKey, Array(identityKey.publicKey.x963Representation))
        var client = ClientSession(
            configuration: .init(identityKey: identityKey, qrSecret: qr.secret),
            ephemeralKey: try t.privateKey(t.handshake, "initiatorEphemeralPrivate"))

        if let request = t.request {
            _ = try Expect.success("queue request", classify: vectorErrorClass) { try client.send(request) }
        }
        var outbox: [[UInt8]] = []
        try collect(client.advertReceived(serviceData: t.advert.bytes("serviceData")), into: &outbox) {
            action throws(VectorMismatch) in
            guard case .connectTunnel(let url, _) = action else { return false }
            try Expect.equal("connect URL", url.description, try t.tunnel.string("connectURL"))
            return true
        }
        try collect(try step("tunnelOpened") { try client.tunnelOpened() }, into: &outbox)
        var delivered: [HybridPayload] = []
        var sentWithReply = 0  // frames the client sent on the step that delivered the reply
        for frame in t.frames where frame.direction == "authenticator-to-client" {
            let sentBefore = outbox.count
            let deliveredBefore = delivered.count
            try collect(
                try step("receive frame \(frame.index)") { try client.messageReceived(frame.ciphertext) }, into: &outbox
            ) { action in
                switch action {
                case .handshakeCompleted, .updateReceived, .finish: break
                case .deliverResponse(let response): delivered.append(response)
                default: return false
                }
                return true
            }
            if delivered.count > deliveredBefore { sentWithReply = outbox.count - sentBefore }
        }
        // Our client sends shutdown only after a reply; a transcript without one may still show it.
        let expected = t.frames.filter {
            $0.direction == "client-to-authenticator" && ($0.kind != "shutdown" || t.reply != nil)
        }
        // A capture that ends with the phone's reply has no shutdown recorded: ours, sent right after
        // the reply, is beyond the transcript.
        let capturedShutdown = t.frames.contains { $0.direction == "client-to-authenticator" && $0.kind == "shutdown" }
        if t.reply != nil, !capturedShutdown, sentWithReply == 1, outbox.count == expected.count + 1 {
            outbox.removeLast()
        }
        try Expect.equal("client frame count", outbox.count, expected.count)
        for (sent, frame) in zip(outbox, expected) {
            try Expect.bytes("client frame \(frame.index)", sent, frame.ciphertext)
        }
        try Expect.bytes("handshake hash", client.handshakeHash ?? [], try t.handshake.bytes("handshakeHash"))
        try Expect.equal(
            "replies delivered", delivered.map(\.bytes), t.reply.map { [$0.bytes] } ?? [],
            show: { $0.map { Hex.encode($0) }.joined(separator: ",") })
        try Expect.equal("client finished", client.isFinished, t.reply != nil)
    }

    private func checkAuthenticator(_ t: SessionTranscript) throws(VectorMismatch) {
        let qr = try Expect.success("QR parse", classify: vectorErrorClass) {
            try QRCodePayload(url: t.qr.string("url"))
        }
        let postHandshake = try Expect.success("post-handshake parse", classify: vectorErrorClass) {
            try PostHandshakeMessage(decoding: try t.frame(kind: "post-handshake").plaintext)
        }
        let domainRaw = try t.tunnel.int("domainID")
        guard let domain = UInt16(exactly: domainRaw).flatMap(TunnelDomainID.init(rawValue:)),
            let nonce = AdvertNonce(bytes: try t.advert.bytes("nonce")),
            let routingID = RoutingID(bytes: try t.advert.bytes("routingID"))
        else { throw VectorMismatch("bad domain, nonce or routing ID") }

        var linking: PhoneLinkingIdentity? = nil
        if let inputs = t.linking {
            linking = PhoneLinkingIdentity(
                contactID: try inputs.bytes("contactID"), pairingID: try inputs.bytes("pairingID"),
                linkSecret: try inputs.bytes("linkSecret"), identityKey: try t.privateKey(inputs, "identityPrivateKey"),
                phoneName: try inputs.string("phoneName"))
        }
        let sendsUpdate = t.frames.contains { $0.kind == "update" }
        var phone = AuthenticatorSession(
            configuration: .init(
                qrSecret: qr.secret, clientIdentityKey: qr.identityKey, domainID: domain,
                getInfo: postHandshake.getInfo ?? [], features: postHandshake.effectiveFeatures,
                sendsUpdateMessage: sendsUpdate, linking: linking),
            advertNonce: nonce, ephemeralKey: try t.privateKey(t.handshake, "responderEphemeralPrivate"))

        var outbox: [[UInt8]] = []
        try collect(try step("start") { try phone.start() }, into: &outbox) { action throws(VectorMismatch) in
            guard case .openTunnel(let url) = action else { return false }
            try Expect.equal("new URL", url.description, try t.tunnel.string("newURL"))
            return true
        }
        try collect(try step("tunnelOpened") { try phone.tunnelOpened(routingID: routingID) }, into: &outbox) {
            action throws(VectorMismatch) in
            guard case .startAdvertising(let serviceData) = action else { return false }
            try Expect.bytes("advert", serviceData, try t.advert.bytes("serviceData"))
            return true
        }
        var delivered: [HybridPayload] = []
        var finished = false
        for frame in t.frames where frame.direction == "client-to-authenticator" {
            var answer: HybridPayload?
            try collect(
                try step("receive frame \(frame.index)") { try phone.messageReceived(frame.ciphertext) }, into: &outbox
            ) { action in
                switch action {
                case .deliverRequest(let request):
                    delivered.append(request)
                    answer = t.reply
                case .finish: finished = true
                case .stopAdvertising: break
                default: return false
                }
                return true
            }
            if let answer {
                try collect(
                    try step("answer frame \(frame.index)") { try phone.requestCompleted(answer) }, into: &outbox)
            }
        }
        let expected = t.frames.filter { $0.direction == "authenticator-to-client" }
        try Expect.equal("authenticator frame count", outbox.count, expected.count)
        for (sent, frame) in zip(outbox, expected) {
            try Expect.bytes("authenticator frame \(frame.index)", sent, frame.ciphertext)
        }
        try Expect.equal(
            "requests delivered", delivered.map(\.bytes), t.request.map { [$0.bytes] } ?? [],
            show: { $0.map { Hex.encode($0) }.joined(separator: ",") })
        try Expect.equal("finished after shutdown", finished, t.frames.contains { $0.kind == "shutdown" })
    }

    private func checkLinkedFlow(_ t: SessionTranscript) throws(VectorMismatch) {
        let linkSecret = try t.advert.bytes("linkSecret")
        let clientNonce = try t.tunnel.bytes("clientNonce")
        guard clientNonce.count == ClientPayload.clientNonceByteCount else {
            throw VectorMismatch("clientNonce is \(clientNonce.count) bytes, not \(ClientPayload.clientNonceByteCount)")
        }
        guard t.frames.count >= 2 else {
            throw VectorMismatch("a linked session needs msg1 and msg2 frames, has \(t.frames.count)")
        }
        let eidKey = EIDKey(deriving: linkSecret, salt: clientNonce)
        try Expect.bytes("EID key", eidKey.bytes, try t.advert.bytes("eidKey"))
        let plaintext = try Expect.success("advert decrypt", classify: vectorErrorClass) {
            try eidKey.decrypt(try t.advert.bytes("serviceData"))
        }
        try Expect.bytes("EID plaintext", plaintext.bytes, try t.advert.bytes("plaintext"))
        let psk = PSK(deriving: linkSecret, eidPlaintext: plaintext)
        try Expect.bytes("PSK", psk.bytes, try t.handshake.bytes("psk"))

        let payload = ClientPayload(
            pairingID: try t.tunnel.bytes("pairingID"), clientNonce: clientNonce,
            requestType: HybridRequestType(hint: try t.tunnel.string("requestType")))
        try Expect.equal("client payload header", payload.headerValue, try t.tunnel.string("clientPayloadHeader"))
        guard let domain = UInt16(exactly: try t.tunnel.int("domainID")).flatMap(TunnelDomainID.init(rawValue:)) else {
            throw VectorMismatch("bad domain")
        }
        let contactURL = TunnelURL.contact(domain: domain, contactID: try t.tunnel.bytes("contactID"))
        try Expect.equal("contact URL", contactURL.description, try t.tunnel.string("contactURL"))

        let responderStatic = try t.privateKey(t.handshake, "responderStaticPrivate")
        let initiator = HandshakeInitiator(
            pattern: .nkpsk0(responderStaticKey: responderStatic.publicKey), psk: psk,
            ephemeralKey: try t.privateKey(t.handshake, "initiatorEphemeralPrivate"))
        let message1 = initiator.makeMessage1()
        try Expect.bytes("msg1", message1, t.frames[0].ciphertext)
        let (message2, phoneResult) = try Expect.success("respond", classify: vectorErrorClass) {
            try HandshakeResponder.respond(
                to: message1, pattern: .nkpsk0(staticKey: responderStatic), psk: psk,
                ephemeralKey: try t.privateKey(t.handshake, "responderEphemeralPrivate"))
        }
        try Expect.bytes("msg2", message2, t.frames[1].ciphertext)
        let clientResult = try Expect.success("process msg2", classify: vectorErrorClass) {
            try initiator.processMessage2(message2)
        }
        try Expect.bytes("handshake hash", clientResult.handshakeHash, try t.handshake.bytes("handshakeHash"))
        try Expect.bytes("phone handshake hash", phoneResult.handshakeHash, try t.handshake.bytes("handshakeHash"))
    }

    /// Runs a session event, turning its error into a mismatch.
    private func step<T>(_ what: String, _ event: () throws -> T) throws(VectorMismatch) -> T {
        try Expect.success(what, classify: vectorErrorClass, event)
    }

    /// Appends every `send` action to `outbox`; other actions go to `other`, which must accept them.
    private func collect<A>(
        _ actions: [A], into outbox: inout [[UInt8]], other: (A) throws(VectorMismatch) -> Bool = { _ in false }
    ) throws(VectorMismatch) {
        for action in actions {
            if let bytes = Self.sentBytes(action) {
                outbox.append(bytes)
            } else if try !other(action) {
                throw VectorMismatch("unexpected action \(action)")
            }
        }
    }

    private static func sentBytes<A>(_ action: A) -> [UInt8]? {
        switch action {
        case let action as ClientSession.Action:
            if case .send(let bytes) = action { return bytes }
        case let action as AuthenticatorSession.Action:
            if case .send(let bytes) = action { return bytes }
        default: break
        }
        return nil
    }
}

/// The parts of a `session` case.
private struct SessionTranscript {
    struct Frame {
        let index: Int
        let direction: String
        let kind: String
        let plaintext: [UInt8]
        let ciphertext: [UInt8]
    }

    let qr: VectorCase
    let tunnel: VectorCase
    let advert: VectorCase
    let handshake: VectorCase
    let linking: VectorCase?
    let frames: [Frame]

    init(_ testCase: VectorCase) throws(VectorMismatch) {
        qr = testCase.has("qr") ? try testCase.object("qr") : testCase
        tunnel = try testCase.object("tunnel")
        advert = try testCase.object("advert")
        handshake = try testCase.object("handshake")
        linking = testCase.has("linking") ? try testCase.object("linking") : nil
        guard case .array(let list) = try testCase.value("frames") else {
            throw VectorMismatch("frames is not an array")
        }
        var frames: [Frame] = []
        for item in list {
            let frame = try VectorCase(Self.named(item, testCase.name))
            frames.append(
                Frame(
                    index: try frame.int("index"), direction: try frame.string("direction"),
                    kind: try frame.string("kind"),
                    plaintext: try frame.bytes("plaintext"), ciphertext: try frame.bytes("ciphertext")))
        }
        self.frames = frames
    }

    /// The client's request: its first CTAP or JSON frame, if any.
    var request: HybridPayload? { payload(from: "client-to-authenticator") }

    /// The phone's reply: its first CTAP or JSON frame, if any.
    var reply: HybridPayload? { payload(from: "authenticator-to-client") }

    private func payload(from direction: String) -> HybridPayload? {
        guard let frame = frames.first(where: { $0.direction == direction && ($0.kind == "ctap" || $0.kind == "json") })
        else { return nil }
        let body = Array(frame.plaintext.dropFirst())
        return frame.kind == "json" ? .json(body) : .ctap(body)
    }

    func frame(kind: String) throws(VectorMismatch) -> Frame {
        guard let frame = frames.first(where: { $0.kind == kind }) else { throw VectorMismatch("no \(kind) frame") }
        return frame
    }

    func privateKey(_ part: VectorCase, _ key: String) throws(VectorMismatch) -> P256.KeyAgreement.PrivateKey {
        guard let privateKey = try? P256.KeyAgreement.PrivateKey(rawRepresentation: try part.bytes(key)) else {
            throw VectorMismatch("\(key) is not a P-256 scalar")
        }
        return privateKey
    }

    private static func named(_ value: JSONValue, _ name: String) -> JSONValue {
        guard case .object(var object) = value else { return value }
        object["name"] = .string(name)
        object["valid"] = .bool(true)
        return .object(object)
    }
}
