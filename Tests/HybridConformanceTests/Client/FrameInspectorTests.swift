import Crypto
import Foundation
import HybridConformance
import HybridCore
import Testing

/// ``FrameInspector`` and ``SessionJudgement`` against a scripted phone: the handshake from the
/// core's responder, and frames sealed here with AES-GCM straight from protocol.md §7.1 and §10.3
/// (nonce, AD and padding written out by hand, not through ``TransportCrypter``).
@Suite struct FrameInspectorTests {
    struct ScriptedPhone {
        let identityKey = P256.KeyAgreement.PrivateKey()
        let ephemeralKey = P256.KeyAgreement.PrivateKey()
        let qrSecret = QRSecret(bytes: (0..<16).map { UInt8($0 * 7) })!
        let advert = AdvertPlaintext(
            nonce: AdvertNonce(bytes: [UInt8](repeating: 9, count: 10))!, routingID: RoutingID(bytes: [1, 2, 3])!,
            domainID: .google)
        let message2: [UInt8]
        let writeKey: SymmetricKey

        init() throws {
            let initiator = HandshakeInitiator(
                pattern: .knpsk0(identityKey: identityKey), psk: qrSecret.psk(eidPlaintext: advert),
                ephemeralKey: ephemeralKey)
            let (message2, result) = try HandshakeResponder.respond(
                to: initiator.makeMessage1(), pattern: .knpsk0(initiatorStaticKey: identityKey.publicKey),
                psk: qrSecret.psk(eidPlaintext: advert), ephemeralKey: P256.KeyAgreement.PrivateKey())
            self.message2 = message2
            writeKey = result.responderToInitiatorKey
        }

        func inspector() -> FrameInspector {
            FrameInspector(identityKey: identityKey, qrSecret: qrSecret, ephemeralKey: ephemeralKey, advert: advert)
        }

        /// Seals `padded` as is: new construction (8 zero bytes ‖ BE32(seq), empty AD) or old
        /// (LE32(seq) ‖ 8 zero bytes, AD 02).
        func seal(_ padded: [UInt8], sequence: UInt32, old: Bool = false) throws -> [UInt8] {
            let be = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: sequence >> $0) }
            let nonce =
                old ? Array(be.reversed()) + [UInt8](repeating: 0, count: 8) : [UInt8](repeating: 0, count: 8) + be
            let box = try AES.GCM.seal(
                padded, using: writeKey, nonce: try AES.GCM.Nonce(data: nonce), authenticating: old ? [0x02] : [])
            return Array(box.ciphertext) + Array(box.tag)
        }
    }

    /// `message ‖ zeros ‖ count` to `length` bytes, with `filler` in place of the zeros.
    static func padded(_ message: [UInt8], to length: Int, filler: UInt8 = 0) -> [UInt8] {
        let count = length - message.count - 1
        return message + [UInt8](repeating: filler, count: count) + [UInt8(count)]
    }

    static let postHandshake: [UInt8] = CBOREncoder.encode(
        .map([
            CBORMapEntry(1, .bytes(CBOREncoder.encode(.map([CBORMapEntry(1, .array([.text("FIDO_2_0")]))])))),
            CBORMapEntry(3, .array([.text("ctap")])),
        ]))

    @Test("correct padding, zeros, new construction: no problem")
    func correctFrame() throws {
        let phone = try ScriptedPhone()
        var inspector = phone.inspector()
        #expect(inspector.inspect(phone.message2) == .message2(nil))
        guard
            case .frame(let frame) = inspector.inspect(
                try phone.seal(
                    Self.padded(Self.postHandshake, to: 32 * ((Self.postHandshake.count / 32) + 1)), sequence: 0))
        else {
            Issue.record("the frame did not open")
            return
        }
        #expect(frame.paddingLengthProblem == nil)
        #expect(frame.paddingIsZero)
        #expect(frame.construction == .new)
        #expect(frame.message == Self.postHandshake)
    }

    @Test("over-long padding (count byte above 31) and a length not a multiple of 32 are problems")
    func badPaddingLength() throws {
        let phone = try ScriptedPhone()
        var inspector = phone.inspector()
        _ = inspector.inspect(phone.message2)
        guard
            case .frame(let tooLong) = inspector.inspect(try phone.seal(Self.padded([1, 2, 3], to: 64), sequence: 0)),
            case .frame(let ragged) = inspector.inspect(try phone.seal(Self.padded([1, 2, 3], to: 40), sequence: 1))
        else {
            Issue.record("the frames did not open")
            return
        }
        #expect(tooLong.paddingLengthProblem?.contains("count byte 60") == true)
        #expect(ragged.paddingLengthProblem?.contains("not a multiple of 32") == true)
    }

    @Test("non-zero padding is seen; the old construction is recognised on the first frame")
    func nonZeroPaddingAndOldConstruction() throws {
        let phone = try ScriptedPhone()
        var inspector = phone.inspector()
        _ = inspector.inspect(phone.message2)
        guard
            case .frame(let frame) = inspector.inspect(
                try phone.seal(Self.padded([1, 2, 3], to: 32, filler: 0xAA), sequence: 0, old: true))
        else {
            Issue.record("the frame did not open")
            return
        }
        #expect(frame.construction == .old)
        #expect(frame.paddingLengthProblem == nil)
        #expect(!frame.paddingIsZero)
    }

    @Test("a msg2 of the wrong length and a frame under the wrong key are reported, not opened")
    func brokenMessages() throws {
        let phone = try ScriptedPhone()
        var inspector = phone.inspector()
        #expect(inspector.inspect(Array(phone.message2.dropLast())) == .message2(.invalidMessageLength(80)))
        var second = phone.inspector()
        _ = second.inspect(phone.message2)
        #expect(second.inspect([UInt8](repeating: 0, count: 48)) == .unopened(sequence: 0, ciphertextLength: 48))
        #expect(second.inspect([UInt8](repeating: 0, count: 48)) == .notInspected)
    }

    // MARK: Session-level faults from the scripted phone, judged

    /// A transcript of msg2, the post-handshake message `plaintext` padded as given, and a reply.
    static func transcript(_ phone: ScriptedPhone, postHandshake padded: [UInt8]) throws -> CeremonyTranscript {
        var inspector = phone.inspector()
        var transcript = CeremonyTranscript(request: "makeCredential")
        transcript.messages.append(inspector.inspect(phone.message2))
        transcript.messages.append(inspector.inspect(try phone.seal(padded, sequence: 0)))
        transcript.reply = [0x00, 0xA0]
        return transcript
    }

    @Test("fault: bad padding of the post-handshake frame fails client.frames.padding")
    func badPaddingIsCaught() throws {
        let phone = try ScriptedPhone()
        var report = ConformanceReport(mode: "client", subject: "scripted")
        SessionJudgement.judge(
            [
                try Self.transcript(
                    phone, postHandshake: Self.padded(Self.postHandshake, to: 96 + 32 * (Self.postHandshake.count / 32))
                )
            ], into: &report)
        #expect(report.result(for: ClientChecks.paddingLength.id)?.outcome == .fail)
        #expect(report.result(for: ClientChecks.postHandshake.id)?.outcome == .pass)
    }

    @Test(
        "fault: a malformed post-handshake message (key 3 a text, not an array) fails client.post-handshake.well-formed"
    )
    func malformedPostHandshakeIsCaught() throws {
        let phone = try ScriptedPhone()
        let malformed = CBOREncoder.encode(.map([CBORMapEntry(1, .bytes([0xA0])), CBORMapEntry(3, .text("ctap"))]))
        var report = ConformanceReport(mode: "client", subject: "scripted")
        SessionJudgement.judge(
            [try Self.transcript(phone, postHandshake: Self.padded(malformed, to: 32))], into: &report)
        #expect(report.result(for: ClientChecks.postHandshake.id)?.outcome == .fail)
        #expect(report.result(for: ClientChecks.paddingLength.id)?.outcome == .pass)
    }

    @Test("a clean scripted transcript passes every session check")
    func cleanTranscriptPasses() throws {
        let phone = try ScriptedPhone()
        var report = ConformanceReport(mode: "client", subject: "scripted")
        SessionJudgement.judge(
            [
                try Self.transcript(
                    phone, postHandshake: Self.padded(Self.postHandshake, to: 32 * (Self.postHandshake.count / 32 + 1)))
            ], into: &report)
        #expect(report.results.count == 7)
        #expect(report.results.allSatisfy { $0.outcome == .pass }, "\(report.humanText())")
    }
}
