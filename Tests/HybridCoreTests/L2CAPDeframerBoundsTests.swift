import Crypto
import HybridCore
import TestSeededRandom
import Testing

/// How much work bytes from anyone nearby can cause on the CTAP 2.3 L2CAP data channel
/// (protocol.md §10.9): the candidates the deframer offers are bounded by what the next message
/// can be, counted here as calls of the accept closure (work, not time).
@Suite struct L2CAPDeframerBoundsTests {
    /// A stranger's flood: a valid P-256 point (what msg1 starts with) and then CRLF pairs, in
    /// seeded random chunks. Unbounded, every CRLF would be a candidate, each copied and
    /// trial-decrypted in full: quadratic work. msg1 is exactly 81 bytes (§6.2), so one cut is
    /// tried, and the stream is refused as soon as 83 bytes are in without a match.
    @Test func aCRLFFloodBeforeTheHandshakeIsRefusedAfterOneTrial() throws {
        var rng = SeededRandom.forProperty()
        let sessions = try Self.sessions(&rng)
        var client = sessions.client
        let phone = sessions.phone
        let point = rng.p256Key().publicKey.x963Representation
        #expect(point.count == 65 && point.first == 0x04)
        let flood = Array(point) + Array(repeating: L2CAPFraming.endOfMessage, count: 2000).joined()

        var deframer = L2CAPMessageDeframer()
        var trials = 0
        var fed = 0
        var failure: L2CAPFramingError?
        feeding: while fed < flood.count {
            let end = min(flood.count, fed + Int.random(in: 1...64, using: &rng))
            try deframer.append(flood[fed..<end])
            fed = end
            do {
                let message = try deframer.nextMessage(expecting: .handshakeMessage) { candidate in
                    trials += 1
                    var trial = phone
                    return (try? trial.messageReceived(candidate)) != nil
                }
                #expect(message == nil)
            } catch {
                failure = error
                break feeding
            }
        }
        #expect(failure == .expectedMessageNotFound(length: 81))
        #expect(trials <= 1, "the cut at 81 bytes only")
        #expect(fed >= 83 && fed < 83 + 64, "refused once 83 bytes were in, not later")
        // The session saw nothing: the genuine msg1 still works.
        var genuine = L2CAPMessageDeframer()
        for case .send(let message1) in try client.tunnelOpened() {
            try genuine.append(L2CAPFraming.frame(message1))
        }
        let message1 = try #require(
            try genuine.nextMessage(expecting: .handshakeMessage) { candidate in
                var trial = phone
                return (try? trial.messageReceived(candidate)) != nil
            })
        #expect(message1.count == 81)
    }

    /// Bytes with no CRLF at 81 are refused at 83 without any trial, and nothing shorter than
    /// 81 bytes plus CRLF is offered.
    @Test func aHandshakeMessageOfTheWrongLengthIsRefusedWithoutATrial() throws {
        var trials = 0
        let accept: ([UInt8]) -> Bool = { _ in
            trials += 1
            return true
        }
        var short = L2CAPMessageDeframer()
        try short.append(Array("GET / HTTP/1.1\r\n\r\n".utf8) + [UInt8](repeating: 0x41, count: 65))
        #expect(short.bufferedByteCount == 83)
        #expect(throws: L2CAPFramingError.expectedMessageNotFound(length: 81)) {
            try short.nextMessage(expecting: .handshakeMessage, accepting: accept)
        }
        var early = L2CAPMessageDeframer()
        try early.append([UInt8](repeating: 0x41, count: 80) + L2CAPFraming.endOfMessage)
        #expect(try early.nextMessage(expecting: .handshakeMessage, accepting: accept) == nil)
        try early.append([0x41])
        #expect(throws: L2CAPFramingError.expectedMessageNotFound(length: 81)) {
            try early.nextMessage(expecting: .handshakeMessage, accepting: accept)
        }
        #expect(trials == 0)
    }

    /// After the handshake a frame may contain CRLFs, so several cuts are tried, but at most
    /// ``L2CAPMessageDeframer/maximumCandidates`` per message, and none shorter than a frame can
    /// be (16-byte tag and one byte of plaintext).
    @Test func transportFrameCandidatesAreBoundedPerMessage() throws {
        var deframer = L2CAPMessageDeframer()
        #expect(deframer.maximumCandidates == L2CAPMessageDeframer.defaultMaximumCandidates)
        var lengths: [Int] = []
        var failure: L2CAPFramingError?
        let flood = Array(Array(repeating: L2CAPFraming.endOfMessage, count: 1000).joined())
        var fed = 0
        while fed < flood.count, failure == nil {
            let end = min(flood.count, fed + 48)
            try deframer.append(flood[fed..<end])
            fed = end
            do {
                _ = try deframer.nextMessage(expecting: .transportFrame) { candidate in
                    lengths.append(candidate.count)
                    return false
                }
            } catch {
                failure = error
            }
        }
        #expect(failure == .tooManyCandidates(limit: L2CAPMessageDeframer.defaultMaximumCandidates))
        #expect(lengths.count == L2CAPMessageDeframer.defaultMaximumCandidates)
        #expect(lengths.allSatisfy { $0 >= 17 }, "no cut shorter than a transport frame")
        #expect(Set(lengths).count == lengths.count, "no cut offered twice")
    }

    /// The bound is per message: each message may use all of it.
    @Test func theCandidateBoundRestartsWithEachMessage() throws {
        var deframer = L2CAPMessageDeframer(maximumCandidates: 2)
        // Two frames of 20 bytes, each with a CRLF inside (at 17), and the end.
        let frame = [UInt8](repeating: 0x61, count: 17) + [0x0D, 0x0A, 0x62]
        try deframer.append((L2CAPFraming.frame(frame) + L2CAPFraming.frame(frame)))
        var trials = 0
        let accept: ([UInt8]) -> Bool = { candidate in
            trials += 1
            return candidate == frame
        }
        #expect(try deframer.nextMessage(expecting: .transportFrame, accepting: accept) == frame)
        #expect(try deframer.nextMessage(expecting: .transportFrame, accepting: accept) == frame)
        #expect(trials == 4)
        try deframer.endOfStream()
    }

    /// The genuine messages of a session still come out with the shapes: msg2 and what follows
    /// it in one read, as a phone sends them back to back.
    @Test func msg2AndThePostHandshakeMessageInOneRead() throws {
        var rng = SeededRandom.forProperty()
        var (client, phone) = try Self.sessions(&rng)
        var toPhone: [UInt8] = []
        for case .send(let message1) in try client.tunnelOpened() { toPhone = message1 }
        var toClient: [UInt8] = []
        var sent = 0
        for case .send(let message) in try phone.messageReceived(toPhone) {
            toClient += L2CAPFraming.frame(message)
            sent += 1
        }
        #expect(sent >= 2, "msg2, the post-handshake message (and an update, if any)")
        var deframer = L2CAPMessageDeframer()
        try deframer.append(toClient)
        var received = 0
        while let message = try deframer.nextMessage(
            expecting: .next(handshakeDone: client.handshakeHash != nil),
            accepting: { candidate in
                var trial = client
                return (try? trial.messageReceived(candidate)) != nil
            })
        {
            _ = try client.messageReceived(message)
            received += 1
        }
        #expect(received == sent)
        #expect(client.handshakeHash != nil && client.handshakeHash == phone.handshakeHash)
        try deframer.endOfStream()
    }

    /// A phone session advertising for a QR code that offers L2CAP, and the client session that
    /// matched its advert (about to send msg1); keys and secret seeded.
    private static func sessions(_ rng: inout SeededRandom) throws -> (
        client: ClientSession, phone: AuthenticatorSession
    ) {
        let identity = rng.p256Key()
        let secret = rng.secret()
        var configuration = AuthenticatorSession.Configuration(
            qrSecret: secret, clientIdentityKey: identity.publicKey, domainID: .google, getInfo: [0xA0])
        configuration.qrChannels = [.cloudTunnel, .bleL2CAP]
        configuration.l2capPSM = 0x0085
        var phone = AuthenticatorSession(
            configuration: configuration, advertNonce: try #require(AdvertNonce(bytes: rng.bytes(10))),
            ephemeralKey: rng.p256Key())
        _ = try phone.start()
        var advert: [UInt8] = []
        for case .startAdvertising(let serviceData) in try phone.tunnelOpened(
            routingID: try #require(RoutingID(bytes: [1, 2, 3])))
        {
            advert = serviceData
        }
        var client = ClientSession(
            configuration: .init(identityKey: identity, qrSecret: secret, acceptsAdvertSuffix: true),
            ephemeralKey: rng.p256Key())
        #expect(!client.advertReceived(serviceData: advert).isEmpty)
        return (client, phone)
    }
}
