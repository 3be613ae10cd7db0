import HybridConformance
import HybridConformanceLive
import HybridCore
import Testing

@testable import HybridClient

/// `hybrid-conformance phone` against our hybrid-client's digital-credential request, in-process:
/// the JSON path passes every `phone.dc.*` check, and each phone fault on that path (no "dc", the
/// error member, an answer that is not JSON or has the wrong shape) ends our client's request with
/// a clear typed error and the session in time.
@Suite struct PhoneDigitalCredentialLoopbackTests {
    @Test(arguments: [PhoneProfile.strict, .ios, .android])
    func ourClientPassesTheJSONPath(_ profile: PhoneProfile) async throws {
        try await PhoneLoopback.with { loopback in
            let (client, report) = try await loopback.runDigitalCredential(profile: profile)
            let credential = try client.get()
            #expect(credential.protocolID == "openid4vp-v1-unsigned")
            #expect(String(decoding: credential.data, as: UTF8.self).contains("placeholder presentation"))
            var expected =
                PhoneChecks.digitalCredentials + [
                    PhoneChecks.qrRequestType, PhoneChecks.frameType, PhoneChecks.ctapMatchesHint,
                    PhoneChecks.oneRequest,
                    PhoneConformanceRun.completionCheck(for: profile),
                ]
            if !profile.hangsUpAfterReply { expected.append(PhoneChecks.shutdownAfterReply) }
            for check in expected {
                let result = report.result(for: check.id)
                #expect(result?.outcome == .pass, "\(profile) \(check.id): \(result?.observed ?? "not run")")
            }
            #expect(
                report.result(for: PhoneChecks.dcEnvelope.id)?.observed.hasPrefix(
                    "credential.get from https://example.com for [openid4vp-v1-unsigned]") == true)
            #expect(report.succeeded, "\(report.humanText())")
        }
    }

    /// Each fault and the error our client must report for it.
    @Test(arguments: [
        (PhoneFault.withholdDC, HybridClientError.digitalCredentialsUnsupported),
        (.errorAnswer, .digitalCredentialRefused("NO_CREDENTIAL")),
        (.malformedAnswer, .invalidResponse(.digitalCredential(.malformedJSON(offset: 43)))),
        (.wrongTypeAnswer, .invalidResponse(.digitalCredential(.wrongType(path: "response")))),
    ])
    func faultEndsOurClientsRequestWithAClearError(_ fault: PhoneFault, _ expected: HybridClientError) async throws {
        try await PhoneLoopback.with { loopback in
            let (client, report) = try await loopback.runDigitalCredential(fault: fault)
            guard case .failure(let error) = client else {
                Issue.record("\(fault): the client got a credential")
                return
            }
            #expect(error as? HybridClientError == expected, "\(fault): \(error)")
            let cleanly = report.result(for: PhoneChecks.faultClientFailsCleanly.id)
            #expect(cleanly?.outcome == .pass, "\(fault): \(cleanly?.observed ?? "not run")")
            let features = report.result(for: PhoneChecks.dcFeatures.id)
            #expect(features?.outcome == .pass, "\(fault): \(features?.observed ?? "not run")")
            if fault == .withholdDC {
                #expect(features?.observed == #"no request sent to a phone that offered ["ctap"]"#)
                #expect(report.result(for: PhoneChecks.dcEnvelope.id)?.outcome == .skip)
            }
            #expect(report.succeeded, "\(report.humanText())")
        }
    }
}
