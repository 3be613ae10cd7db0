import HybridConformance
import HybridCore
import Testing

/// `client.transport.sequence-limit` (``SequenceLimitJudgement``) on the transcripts of its two
/// ceremonies: a phone that answers at sequence 2^24 − 1 and not at 2^24 passes; one that answers
/// past the limit is warned, the check being advice (the broken peer); one that answers neither
/// is skipped, since nothing then tells the limit apart from a phone (or relay) that stopped
/// carrying the updates.
@Suite struct SequenceLimitJudgementTests {
    /// A ceremony whose phone sent its post-handshake message and, if `answered`, a CTAP getInfo
    /// reply (type 01, status 00, an empty map), each padded to 32 bytes as §7.1 says.
    static func transcript(_ name: String, answered: Bool, failure: String? = nil) -> CeremonyTranscript {
        var transcript = CeremonyTranscript(request: name)
        transcript.messages = [
            .message2(nil), .frame(OpenedFrame(sequence: 0, padded: padded([0xA0]), construction: .new)),
        ]
        if answered {
            transcript.messages.append(
                .frame(OpenedFrame(sequence: 1, padded: padded([0x01, 0x00, 0xA0]), construction: .new)))
            transcript.reply = [0x00, 0xA0]
        }
        transcript.failure = failure
        return transcript
    }

    static func padded(_ message: [UInt8]) -> [UInt8] {
        let zeros = 31 - message.count
        return message + [UInt8](repeating: 0, count: zeros) + [UInt8(zeros)]
    }

    static func judged(atLimit: CeremonyTranscript, pastLimit: CeremonyTranscript) throws -> CheckResult {
        var report = ConformanceReport(mode: "client", subject: "transcripts")
        SequenceLimitJudgement.judge(atLimit: atLimit, pastLimit: pastLimit, into: &report)
        return try #require(report.result(for: SequenceLimitJudgement.check.id))
    }

    @Test("the limit is 2^24 − 1 (protocol.md §7.1): the request at the limit after that many updates")
    func countsComeFromTheRule() {
        #expect(SequenceLimitJudgement.updatesAtLimit == 16_777_215)
        #expect(SequenceLimitJudgement.updatesPastLimit == 16_777_216)
        #expect(!SequenceLimitJudgement.check.required)
    }

    @Test("an answer at the limit and none past it passes")
    func refusalPastTheLimitPasses() throws {
        let result = try Self.judged(
            atLimit: Self.transcript("at", answered: true),
            pastLimit: Self.transcript("past", answered: false, failure: "tunnel connection is closed"))
        #expect(result.outcome == .pass, "\(result.observed)")
        #expect(result.observed.contains("16777216"), "\(result.observed)")
    }

    @Test("a phone that opens the message past the limit is warned (advice), whatever it did at the limit")
    func answerPastTheLimitFails() throws {
        for atLimitAnswered in [true, false] {
            let result = try Self.judged(
                atLimit: Self.transcript("at", answered: atLimitAnswered),
                pastLimit: Self.transcript("past", answered: true))
            #expect(result.outcome == .warn, "\(result.observed)")
            #expect(result.observed.contains("past the limit"), "\(result.observed)")
        }
    }

    @Test("no answer at the limit (a relay's budget closed the tunnel) is a skip, never a pass")
    func noAnswerAtTheLimitSkips() throws {
        let result = try Self.judged(
            atLimit: Self.transcript("at", answered: false, failure: "tunnel connection is closed"),
            pastLimit: Self.transcript("past", answered: false, failure: "tunnel connection is closed"))
        #expect(result.outcome == .skip, "\(result.observed)")
        #expect(result.observed.contains("tunnel connection is closed"), "\(result.observed)")
    }
}
