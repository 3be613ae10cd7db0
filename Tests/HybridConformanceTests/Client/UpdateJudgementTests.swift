import HybridConformance
import HybridCore
import Testing

/// ``UpdateJudgement`` on update messages built from the rules and vectors: the Chromium phone's
/// padded update (protocol.md §7.4, from v2_authenticator.cc), webauthn-rs's update frame whose
/// payload is no map (frame.json), and the linking maps of linking.json (Chromium's
/// ParseInvalidLinkingInformation cases, a Play Services capture).
@Suite struct UpdateJudgementTests {
    /// One ceremony: post-handshake message, then `update` (type 02 + payload) after the answer.
    static func report(update payload: [UInt8]) -> ConformanceReport {
        var transcript = CeremonyTranscript(request: "getAssertion")
        transcript.messages = [
            .message2(nil),
            .frame(OpenedFrame(sequence: 0, padded: TransportPadding.pad([0xA0]), construction: .new)),
            .frame(OpenedFrame(sequence: 1, padded: TransportPadding.pad([0x01, 0x00, 0xA0]), construction: .new)),
            .frame(OpenedFrame(sequence: 2, padded: TransportPadding.pad([0x02] + payload), construction: .new)),
        ]
        var report = ConformanceReport(mode: "client", subject: "vector")
        UpdateJudgement.judge([transcript], into: &report)
        return report
    }

    static func outcome(_ payload: [UInt8]) -> CheckOutcome? {
        report(update: payload).result(for: ClientChecks.updateWellFormed.id)?.outcome
    }

    @Test("the Chromium phone's update {0: 492 zero bytes} passes")
    func chromiumPaddedUpdate() {
        // §7.4: padding_length = 512 - 20 = 492 without linking; bstr(492) is 59 01 EC.
        #expect(Self.outcome([0xA1, 0x00, 0x59, 0x01, 0xEC] + [UInt8](repeating: 0, count: 492)) == .pass)
    }

    @Test("webauthn-rs's update frame, whose payload is not a CBOR map, fails")
    func webauthnRSUpdateFrame() throws {
        let vector = try #require(
            try SharedVectorFile.cases("frame.json").first { $0["name"] as? String == "webauthn-rs-update" })
        #expect(Self.outcome(try Hex.decode(vector["payload"] as? String ?? "")) == .fail)
    }

    @Test("linking maps: valid ones pass, structurally wrong ones fail (signatures are not judged)")
    func linkingVectors() throws {
        let cases = try SharedVectorFile.cases("linking.json")
        #expect(cases.count >= 10)
        for vector in cases {
            let name = vector["name"] as? String ?? "?"
            let linking = try Hex.decode(vector["linkingMap"] as? String ?? "")
            // {1: linking}: a1 01 ‖ linking.
            let outcome = Self.outcome([0xA1, 0x01] + linking)
            let structural = vector["valid"] as? Bool == true || vector["error"] as? String == "signature"
            #expect(outcome == (structural ? .pass : .fail), "\(name)")
        }
    }

    @Test("a session without an update skips the check")
    func noUpdate() {
        var transcript = CeremonyTranscript(request: "makeCredential")
        transcript.messages = [
            .message2(nil), .frame(OpenedFrame(sequence: 0, padded: TransportPadding.pad([0xA0]), construction: .new)),
        ]
        var report = ConformanceReport(mode: "client", subject: "vector")
        UpdateJudgement.judge([transcript], into: &report)
        #expect(report.result(for: ClientChecks.updateWellFormed.id)?.outcome == .skip)
    }
}
