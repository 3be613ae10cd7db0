import Foundation
import HybridConformance
import HybridCore
import Testing

/// ``SessionJudgement`` and ``GetInfoJudgement`` on the post-handshake messages of the shared
/// postHandshake.json (real Android and iOS phones via webauthn-rs, Chromium's formats), with the
/// expected outcomes read from each case's own fields.
@Suite struct PostHandshakeJudgementVectorTests {
    /// One ceremony whose post-handshake frame carries `plaintext` (padded per §7.1).
    static func report(_ plaintext: [UInt8]) -> ConformanceReport {
        var transcript = CeremonyTranscript(request: "makeCredential")
        transcript.messages = [
            .message2(nil),
            .frame(OpenedFrame(sequence: 0, padded: TransportPadding.pad(plaintext), construction: .new)),
        ]
        transcript.reply = [0x00, 0xA0]
        var report = ConformanceReport(mode: "client", subject: "vector")
        SessionJudgement.judge([transcript], into: &report)
        GetInfoJudgement.judge(SessionJudgement.getInfo([transcript]), into: &report)
        return report
    }

    @Test("each vector's post-handshake and getInfo outcome follows from its own fields")
    func vectors() throws {
        let cases = try SharedVectorFile.cases("postHandshake.json")
        #expect(cases.count >= 10)
        for vector in cases {
            let name = vector["name"] as? String ?? "?"
            let report = Self.report(try Hex.decode(vector["plaintext"] as? String ?? ""))
            let outcome = { (check: ConformanceCheck) in report.result(for: check.id)?.outcome }
            guard vector["valid"] as? Bool == true else {
                #expect(outcome(ClientChecks.postHandshake) == .fail, "\(name)")
                continue
            }
            let effective = vector["effectiveFeatures"] as? [String] ?? []
            #expect(outcome(ClientChecks.postHandshake) == (effective.contains("ctap") ? .pass : .fail), "\(name)")
            let legacy = vector["revision"] as? Int == 0 || vector["features"] is NSNull
            #expect(outcome(ClientChecks.postHandshakeRevision) == (legacy ? .warn : .pass), "\(name)")
            guard let fields = vector["getInfoFields"] as? [String: Any] else {
                #expect(outcome(ClientChecks.getInfoVersions) == .skip, "\(name)")
                continue
            }
            let versions = fields["versions"] as? [String] ?? []
            #expect(
                outcome(ClientChecks.getInfoVersions)
                    == (versions.contains { $0.hasPrefix("FIDO_2_") } ? .pass : .fail), "\(name)")
            #expect(
                outcome(ClientChecks.getInfoAAGUID) == ((fields["aaguid"] as? String)?.count == 32 ? .pass : .fail),
                "\(name)")
            #expect(
                outcome(ClientChecks.getInfoOptions) == (fields["options"] is [String: Bool] ? .pass : .warn), "\(name)"
            )
        }
    }
}
