import HybridConformance
import HybridCore
import Testing

/// The client mode's advert checks on the real Android advert of advertSuffix.json (libwebauthn
/// PR #216's log, 24 bytes with the suffix `{1: 130}`), and ``AdvertRoutingJudgement`` on what
/// the runner hands it.
@Suite struct AdvertJudgementVectorTests {
    static func androidAdvert() throws -> [UInt8] {
        let vector = try #require(
            try SharedVectorFile.cases("advertSuffix.json").first {
                $0["name"] as? String == "android-real-advert-psm-130"
            })
        return try Hex.decode(vector["serviceData"] as? String ?? "")
    }

    static func suffixOutcome(_ serviceData: [UInt8], offered: [DataTransferChannel]?) -> CheckOutcome? {
        var transcript = CeremonyTranscript(request: "getAssertion")
        transcript.advert = (serviceData, offered)
        var report = ConformanceReport(mode: "client", subject: "vector")
        L2CAPJudgement.judgeAdverts([transcript], into: &report)
        return report.result(for: ClientChecks.advertSuffix.id)?.outcome
    }

    @Test("the real Android advert passes for a QR code that offered L2CAP, and fails for one that did not")
    func androidAdvertSuffix() throws {
        let advert = try Self.androidAdvert()
        #expect(advert.count == 24)
        #expect(Self.suffixOutcome(advert, offered: [.cloudTunnel, .bleL2CAP]) == .pass)
        #expect(Self.suffixOutcome(advert, offered: nil) == .fail)
        #expect(Self.suffixOutcome(Array(advert.prefix(20)), offered: nil) == .pass)
    }

    static func routingOutcome(_ transcript: CeremonyTranscript) -> CheckResult? {
        var report = ConformanceReport(mode: "client", subject: "vector")
        AdvertRoutingJudgement.judge([transcript], into: &report)
        return report.result(for: ClientChecks.advertRoutes.id)
    }

    @Test("an advert that decrypted and led to the phone's handshake passes; one whose tunnel never answered fails")
    func routing() throws {
        let plaintext = try AdvertPlaintext(bytes: [0] + [UInt8](repeating: 7, count: 10) + [0x2A, 0, 1] + [0, 0])
        var answered = CeremonyTranscript(request: "makeCredential")
        let serviceData = Array(try Self.androidAdvert().prefix(20))
        answered.advert = (serviceData, nil)
        answered.advertPlaintext = .success(plaintext)
        answered.messages = [.message2(nil)]
        let passed = try #require(Self.routingOutcome(answered))
        #expect(passed.outcome == .pass)
        #expect(passed.observed.contains("routing ID 2A0001, domain 0"), "\(passed.observed)")

        var unanswered = answered
        unanswered.messages = []
        unanswered.failure = "the relay answered 404 to /cable/connect"
        #expect(Self.routingOutcome(unanswered)?.outcome == .fail)

        var undecryptable = answered
        undecryptable.advertPlaintext = .failure(.authenticationFailed)
        #expect(Self.routingOutcome(undecryptable)?.outcome == .fail)

        #expect(Self.routingOutcome(CeremonyTranscript(request: "makeCredential"))?.outcome == .skip)
    }
}
