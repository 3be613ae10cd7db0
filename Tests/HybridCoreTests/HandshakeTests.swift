import Crypto
import HybridCore
import TestSeededRandom
import TestVectorFiles
import Testing

@Suite struct HandshakeTests {
    @Test func sharedVectors() { VectorFiles.expectAllPass("handshake.json") }

    private func psk(_ random: inout SeededRandom) -> PSK {
        guard let psk = PSK(bytes: random.bytes(32)) else { preconditionFailure() }
        return psk
    }

    /// Runs a full handshake and returns both results.
    private func handshake(
        initiator pattern: HandshakeInitiator.Pattern,
        responder responderPattern: HandshakeResponder.Pattern,
        psk: PSK,
        responderPSK: PSK? = nil,
        random: inout SeededRandom
    ) throws -> (initiator: HandshakeResult, responder: HandshakeResult) {
        let initiator = HandshakeInitiator(pattern: pattern, psk: psk, ephemeralKey: random.p256Key())
        let message1 = initiator.makeMessage1()
        #expect(message1.count == 81)
        let (message2, responderResult) = try HandshakeResponder.respond(
            to: message1,
            pattern: responderPattern,
            psk: responderPSK ?? psk,
            ephemeralKey: random.p256Key()
        )
        #expect(message2.count == 81)
        return (try initiator.processMessage2(message2), responderResult)
    }

    private func expectAgreement(_ results: (initiator: HandshakeResult, responder: HandshakeResult)) throws {
        #expect(results.initiator.handshakeHash == results.responder.handshakeHash)
        #expect(results.initiator.handshakeHash.count == 32)
        #expect(results.initiator.initiatorToResponderKey == results.responder.initiatorToResponderKey)
        #expect(results.initiator.responderToInitiatorKey == results.responder.responderToInitiatorKey)
        #expect(results.initiator.initiatorToResponderKey != results.initiator.responderToInitiatorKey)
        var client = results.initiator.crypter(for: .initiator)
        var phone = results.responder.crypter(for: .responder)
        #expect(try phone.decrypt(client.encrypt([1, 2, 3])) == [1, 2, 3])
        #expect(try client.decrypt(phone.encrypt([4, 5])) == [4, 5])
        #expect(try client.decrypt(phone.encrypt([])) == [])
    }

    @Test func knHandshakeCompletesWithRandomKeys() throws {
        var random = SeededRandom(seed: 0x4B4E)
        for _ in 0..<10 {
            let identity = random.p256Key()
            let results = try handshake(
                initiator: .knpsk0(identityKey: identity),
                responder: .knpsk0(initiatorStaticKey: identity.publicKey),
                psk: psk(&random),
                random: &random
            )
            try expectAgreement(results)
        }
    }

    @Test func nkHandshakeCompletesWithRandomKeys() throws {
        var random = SeededRandom(seed: 0x4E4B)
        for _ in 0..<10 {
            let phoneIdentity = random.p256Key()
            let results = try handshake(
                initiator: .nkpsk0(responderStaticKey: phoneIdentity.publicKey),
                responder: .nkpsk0(staticKey: phoneIdentity),
                psk: psk(&random),
                random: &random
            )
            try expectAgreement(results)
        }
    }

    @Test func knAndNKWithTheSameKeysDiffer() throws {
        var random = SeededRandom(seed: 3)
        let key = random.p256Key()
        let sharedPSK = psk(&random)
        let ephemeral = random.p256Key()
        let kn = HandshakeInitiator(pattern: .knpsk0(identityKey: key), psk: sharedPSK, ephemeralKey: ephemeral)
        let nk = HandshakeInitiator(
            pattern: .nkpsk0(responderStaticKey: key.publicKey),
            psk: sharedPSK,
            ephemeralKey: ephemeral
        )
        #expect(kn.makeMessage1().prefix(65) == nk.makeMessage1().prefix(65))
        #expect(kn.makeMessage1().suffix(16) != nk.makeMessage1().suffix(16))
    }

    @Test func wrongPSKFailsTheResponder() throws {
        var random = SeededRandom(seed: 0x9)
        let identity = random.p256Key()
        #expect(throws: HandshakeError.authenticationFailed) {
            try handshake(
                initiator: .knpsk0(identityKey: identity),
                responder: .knpsk0(initiatorStaticKey: identity.publicKey),
                psk: psk(&random),
                responderPSK: psk(&random),
                random: &random
            )
        }
        let phone = random.p256Key()
        #expect(throws: HandshakeError.authenticationFailed) {
            try handshake(
                initiator: .nkpsk0(responderStaticKey: phone.publicKey),
                responder: .nkpsk0(staticKey: phone),
                psk: psk(&random),
                responderPSK: psk(&random),
                random: &random
            )
        }
    }

    @Test func wrongInitiatorIdentityFailsTheResponder() {
        var random = SeededRandom(seed: 0xA)
        let shown = random.p256Key()
        let used = random.p256Key()
        #expect(throws: HandshakeError.authenticationFailed) {
            try handshake(
                initiator: .knpsk0(identityKey: used),
                responder: .knpsk0(initiatorStaticKey: shown.publicKey),
                psk: psk(&random),
                random: &random
            )
        }
    }

    @Test func wrongResponderStaticKeyFailsTheResponder() {
        var random = SeededRandom(seed: 0xB)
        let linked = random.p256Key()
        let actual = random.p256Key()
        #expect(throws: HandshakeError.authenticationFailed) {
            try handshake(
                initiator: .nkpsk0(responderStaticKey: linked.publicKey),
                responder: .nkpsk0(staticKey: actual),
                psk: psk(&random),
                random: &random
            )
        }
    }

    @Test func messageLengthChecks() throws {
        var random = SeededRandom(seed: 0xC)
        let identity = random.p256Key()
        let sharedPSK = psk(&random)
        let initiator = HandshakeInitiator(
            pattern: .knpsk0(identityKey: identity),
            psk: sharedPSK,
            ephemeralKey: random.p256Key()
        )
        let message1 = initiator.makeMessage1()
        let responder = HandshakeResponder.Pattern.knpsk0(initiatorStaticKey: identity.publicKey)
        for length in [0, 1, 33, 64] {
            #expect(throws: HandshakeError.invalidMessageLength(length)) {
                try HandshakeResponder.respond(
                    to: message1.prefix(length),
                    pattern: responder,
                    psk: sharedPSK,
                    ephemeralKey: random.p256Key()
                )
            }
        }
        // 65…80 bytes: a point but no complete tag.
        #expect(throws: HandshakeError.authenticationFailed) {
            try HandshakeResponder.respond(
                to: message1.prefix(70),
                pattern: responder,
                psk: sharedPSK,
                ephemeralKey: random.p256Key()
            )
        }
        let (message2, _) = try HandshakeResponder.respond(
            to: message1,
            pattern: responder,
            psk: sharedPSK,
            ephemeralKey: random.p256Key()
        )
        for length in [0, 65, 80] {
            #expect(throws: HandshakeError.invalidMessageLength(length)) {
                try initiator.processMessage2(message2.prefix(length))
            }
        }
        #expect(throws: HandshakeError.invalidMessageLength(82)) { try initiator.processMessage2(message2 + [0]) }
    }

    @Test func invalidPoints() throws {
        var random = SeededRandom(seed: 0xD)
        let identity = random.p256Key()
        let sharedPSK = psk(&random)
        let initiator = HandshakeInitiator(
            pattern: .knpsk0(identityKey: identity),
            psk: sharedPSK,
            ephemeralKey: random.p256Key()
        )
        let message1 = initiator.makeMessage1()
        let responder = HandshakeResponder.Pattern.knpsk0(initiatorStaticKey: identity.publicKey)
        var compressedPrefix = message1
        compressedPrefix[0] = 0x02
        var offCurve = message1
        offCurve[64] ^= 1
        for bad in [compressedPrefix, offCurve, [UInt8](repeating: 0, count: 81)] {
            #expect(throws: HandshakeError.invalidPoint) {
                try HandshakeResponder.respond(
                    to: bad,
                    pattern: responder,
                    psk: sharedPSK,
                    ephemeralKey: random.p256Key()
                )
            }
        }
        let (message2, _) = try HandshakeResponder.respond(
            to: message1,
            pattern: responder,
            psk: sharedPSK,
            ephemeralKey: random.p256Key()
        )
        var badMessage2 = message2
        badMessage2[64] ^= 1
        #expect(throws: HandshakeError.invalidPoint) { try initiator.processMessage2(badMessage2) }
    }

    @Test func flippingAnyBitOfEitherMessageFails() throws {
        var random = SeededRandom(seed: 0xE)
        let phone = random.p256Key()
        let sharedPSK = psk(&random)
        let initiator = HandshakeInitiator(
            pattern: .nkpsk0(responderStaticKey: phone.publicKey),
            psk: sharedPSK,
            ephemeralKey: random.p256Key()
        )
        let message1 = initiator.makeMessage1()
        let responderEphemeral = random.p256Key()
        let (message2, _) = try HandshakeResponder.respond(
            to: message1,
            pattern: .nkpsk0(staticKey: phone),
            psk: sharedPSK,
            ephemeralKey: responderEphemeral
        )
        for bit in 0..<(81 * 8) {
            #expect(throws: HandshakeError.self) {
                try HandshakeResponder.respond(
                    to: flippingBit(bit, of: message1),
                    pattern: .nkpsk0(staticKey: phone),
                    psk: sharedPSK,
                    ephemeralKey: responderEphemeral
                )
            }
            #expect(throws: HandshakeError.self) { try initiator.processMessage2(flippingBit(bit, of: message2)) }
        }
    }

    @Test func processingIsRepeatableOnTheSameInitiator() throws {
        // The initiator is a value: a failed msg2 does not spoil it for the genuine one.
        var random = SeededRandom(seed: 0xF)
        let identity = random.p256Key()
        let sharedPSK = psk(&random)
        let initiator = HandshakeInitiator(
            pattern: .knpsk0(identityKey: identity),
            psk: sharedPSK,
            ephemeralKey: random.p256Key()
        )
        let (message2, responderResult) = try HandshakeResponder.respond(
            to: initiator.makeMessage1(),
            pattern: .knpsk0(initiatorStaticKey: identity.publicKey),
            psk: sharedPSK,
            ephemeralKey: random.p256Key()
        )
        #expect(throws: HandshakeError.authenticationFailed) {
            try initiator.processMessage2(flippingBit(80 * 8, of: message2))
        }
        #expect(try initiator.processMessage2(message2).handshakeHash == responderResult.handshakeHash)
    }
}
