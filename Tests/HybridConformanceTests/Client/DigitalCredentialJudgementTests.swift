import HybridAuthenticator
import HybridConformance
import HybridCore
import Testing

/// `client.dc.*`: the judgement on its own (answers from Chromium's dispatcher unit test) and the
/// client mode against our phone on loopback.
@Suite struct DigitalCredentialJudgementTests {
    typealias Probe = DigitalCredentialJudgement.Probe

    /// Chromium's `cross_device_request_dispatcher_unittest.cc` ErrorResponse answer.
    static let noCredential = Array(#"{"response": {"digital": {"error": "NO_CREDENTIAL"}}}"#.utf8)

    static func outcomes(_ probes: [Probe]) -> [String: CheckOutcome] {
        var report = ConformanceReport(mode: "client", subject: "")
        DigitalCredentialJudgement.judge(probes, into: &report)
        return Dictionary(uniqueKeysWithValues: report.results.map { ($0.check.id, $0.outcome) })
    }

    @Test func errorsAndClosedTunnelsPass() {
        let outcomes = Self.outcomes([
            Probe(name: "valid", features: [.digitalCredentials], reply: Self.noCredential),
            Probe(name: "malformed JSON", features: [.digitalCredentials], failure: "tunnel closed"),
            Probe(name: "oversized", features: [.digitalCredentials], reply: Self.noCredential),
            Probe(name: "valid again", features: [.digitalCredentials], reply: Self.noCredential),
        ])
        #expect(
            outcomes == [
                "client.dc.features": .pass, "client.dc.answer": .pass, "client.dc.bad-input": .pass,
                "client.dc.survives-bad-input": .pass,
            ])
    }

    @Test func aCredentialForBadInputOrAnUnreadableAnswerFails() {
        // The standard shape of Chromium's OnComplete: a credential where an error belongs.
        let credential = Array(#"{"response":{"digital":{"data":{"data":{},"protocol":"p"}}}}"#.utf8)
        let outcomes = Self.outcomes([
            Probe(name: "valid", features: [.ctap, .digitalCredentials], reply: Array("!".utf8)),
            Probe(name: "requestType credential.create", features: [.digitalCredentials], reply: credential),
            Probe(name: "valid again", features: [.digitalCredentials], failure: "tunnel closed"),
        ])
        #expect(outcomes["client.dc.answer"] == .fail)
        // Advice: a credential for bad input and a phone that stops serving warn (no rule fixes them).
        #expect(outcomes["client.dc.bad-input"] == .warn)
        #expect(outcomes["client.dc.survives-bad-input"] == .warn)
    }

    @Test func aPhoneWithoutDCIsSkipped() {
        let outcomes = Self.outcomes([Probe(name: "valid", features: [], failure: "no dc")])
        #expect(Set(outcomes.values) == [.skip])
    }

    /// A wallet that declines: every probe gets the refusal, the phone keeps serving.
    struct DecliningWallet: DigitalCredentialProvider {
        func present(origin: String, entries: [DigitalCredentialRequestEntry]) async -> DigitalCredentialOutcome {
            .refused(.declined)
        }
    }

    @Test("AuthenticatorRunner with a wallet passes client.dc.*", .timeLimit(.minutes(5)))
    func ourPhonePasses() async throws {
        let report = try await ClientLoopback.run(
            digitalCredentials: true,
            phone: ClientLoopback.runnerPhone(ClientLoopback.engine(), wallet: DecliningWallet()))
        for check in DigitalCredentialJudgement.all {
            let result = try #require(report.result(for: check.id))
            #expect(result.outcome == .pass, "\(check.id): \(result.observed)")
        }
    }
}
