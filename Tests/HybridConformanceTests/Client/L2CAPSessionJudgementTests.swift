import HybridConformance
import HybridCore
import Testing

/// `client.l2cap.session` (``L2CAPJudgement/judgeSessions(_:into:)``) on the real Android advert
/// of advertSuffix.json, whose suffix `{1: 130}` offers PSM 130: a ceremony that ran over that
/// channel to its reply passes; one whose client gave the channel up, or whose session over it
/// ended without a reply, fails; no PSM, or no attempt, skips.
@Suite struct L2CAPSessionJudgementTests {
    static func judged(_ transcripts: [CeremonyTranscript]) -> CheckResult? {
        var report = ConformanceReport(mode: "client", subject: "vector")
        L2CAPJudgement.judgeSessions(transcripts, into: &report)
        return report.result(for: ClientChecks.l2capSession.id)
    }

    /// A makeCredential ceremony that saw the Android advert, tried PSM 130 and ran over it.
    static func overL2CAP(_ request: String = "makeCredential") throws -> CeremonyTranscript {
        var transcript = CeremonyTranscript(request: request)
        transcript.advert = (try AdvertJudgementVectorTests.androidAdvert(), [.cloudTunnel, .bleL2CAP])
        transcript.l2capAttempt = 130
        transcript.channel = .l2cap
        transcript.reply = [0x00, 0xA0]
        return transcript
    }

    @Test("a session over the advertised PSM that got its reply passes, naming the PSM")
    func carriedPasses() throws {
        let result = try #require(Self.judged([try Self.overL2CAP(), try Self.overL2CAP("getAssertion")]))
        #expect(result.outcome == .pass)
        #expect(
            result.observed.contains("makeCredential over PSM 130, getAssertion over PSM 130"), "\(result.observed)")
    }

    @Test("a client that gave the channel up fails, even when the tunnel then carried the reply")
    func givenUpFails() throws {
        var fellBack = try Self.overL2CAP()
        fellBack.l2capGivenUp = "the phone's channel was not open within 4 s"
        fellBack.channel = .tunnel
        let result = try #require(Self.judged([fellBack]))
        #expect(result.outcome == .fail)
        #expect(result.observed.contains("PSM 130"), "\(result.observed)")
        #expect(result.observed.contains("fell back to the tunnel"), "\(result.observed)")

        var refused = try Self.overL2CAP()
        refused.l2capGivenUp = "connecting to the phone's PSM failed: connection refused"
        refused.channel = nil
        refused.reply = nil
        refused.failure = "the phone's BLE L2CAP channel is unavailable"
        #expect(Self.judged([refused])?.outcome == .fail)
    }

    @Test("a session over the channel that ended without a reply fails; so does the second of two")
    func noReplyFails() throws {
        var cut = try Self.overL2CAP("getAssertion")
        cut.reply = nil
        cut.failure = "the L2CAP channel closed"
        let result = try #require(Self.judged([try Self.overL2CAP(), cut]))
        #expect(result.outcome == .fail)
        #expect(result.observed.hasPrefix("getAssertion"), "\(result.observed)")
        #expect(result.observed.contains("the L2CAP channel closed"), "\(result.observed)")
    }

    @Test("no PSM in any advert, or a client that never tried one, skips")
    func skips() throws {
        var noSuffix = try Self.overL2CAP()
        noSuffix.advert = (Array(try AdvertJudgementVectorTests.androidAdvert().prefix(20)), nil)
        #expect(Self.judged([noSuffix])?.outcome == .skip)
        #expect(Self.judged([CeremonyTranscript(request: "makeCredential")])?.outcome == .skip)

        var untried = try Self.overL2CAP()
        untried.l2capAttempt = nil
        untried.channel = .tunnel
        let result = try #require(Self.judged([untried]))
        #expect(result.outcome == .skip)
        #expect(result.observed.contains("PSM 130"), "\(result.observed)")
    }
}
