import HybridConformance
import HybridCore
import Testing

/// Broken clients on the JSON (digital-credential) path, each caught by the `phone.dc.*` check
/// that names its fault. The expected request is Chromium's envelope, written out by hand
/// (``ScriptedClient/digitalCredentialJSON``, protocol.md §7.8).
@Suite struct PhoneDigitalCredentialFaultTests {
    /// A script that sends `json` (after the type byte) to a phone offering `features`.
    static func sending(_ json: String, features: [HybridFeature] = [.digitalCredentials]) -> ScriptedClient.Script {
        var script = ScriptedClient.Script()
        script.features = features
        script.messages = [[0x03] + Array(json.utf8), nil, [0x00]]
        return script
    }

    /// Chromium's request with `original` replaced by `replacement` (which must occur once).
    static func chromium(replacing original: String, with replacement: String) -> String {
        let json = ScriptedClient.digitalCredentialJSON
        precondition(json.components(separatedBy: original).count == 2, "\(original) must occur once")
        return json.replacingOccurrences(of: original, with: replacement)
    }

    @Test func chromiumShapedRequestPassesEveryCheck() throws {
        let report = try ScriptedClient.run(
            Self.sending(ScriptedClient.digitalCredentialJSON), hint: .digitalCredentialPresentation)
        for check in PhoneChecks.digitalCredentials + [
            PhoneChecks.frameType, PhoneChecks.ctapMatchesHint, PhoneChecks.oneRequest, PhoneChecks.shutdownAfterReply,
        ] {
            let result = report.result(for: check.id)
            #expect(result?.outcome == .pass, "\(check.id): \(result?.observed ?? "not run")")
        }
        #expect(
            report.result(for: PhoneChecks.dcEnvelope.id)?.observed
                == "credential.get from https://example.com for [openid4vp-v1-unsigned] (\(ScriptedClient.digitalCredentialJSON.utf8.count) bytes)"
        )
        #expect(report.result(for: PhoneChecks.ctapCanonicalCBOR.id)?.outcome == .skip)
        #expect(report.succeeded, "\(report.humanText())")
    }

    /// The bytes Chromium 156 sent to `hybrid-conformance phone` for a page on
    /// http://localhost:8000 asking for an mDL's age_over_18 (`ci/run-chromium-interop.sh
    /// --phone-conformance`, 2026-11-28), after the type byte.
    static let chromium156 =
        #"{"origin":"http://localhost:8000","request":{"digital":{"requests":[{"data":{"dcql_query":"#
        + #"{"credentials":[{"claims":[{"path":["org.iso.18013.5.1","age_over_18"]}],"format":"mso_mdoc","id":"mdl","#
        + #""meta":{"doctype_value":"org.iso.18013.5.1.mDL"}}]},"nonce":"phone-conformance-nonce","#
        + #""response_mode":"dc_api","response_type":"vp_token"},"protocol":"openid4vp-v1-unsigned"}]}},"#
        + #""requestType":"credential.get"}"#

    @Test func chromium156sRequestPassesEveryCheck() throws {
        #expect(Self.chromium156.utf8.count == 403)
        let report = try ScriptedClient.run(Self.sending(Self.chromium156), hint: .digitalCredentialPresentation)
        for check in PhoneChecks.digitalCredentials {
            let result = report.result(for: check.id)
            #expect(result?.outcome == .pass, "\(check.id): \(result?.observed ?? "not run")")
        }
    }

    /// A phone without "dc" for a `dcp` QR code: the client has nothing to send and ends the
    /// session, as Chromium 156 does (only a shutdown `00`, seen under `--fault withhold-dc`).
    @Test func shutdownWithoutARequestToAPhoneWithoutDCPasses() throws {
        var script = ScriptedClient.Script()
        script.features = [.ctap]
        script.messages = [[0x00]]
        let report = try ScriptedClient.run(script, hint: .digitalCredentialPresentation)
        for check in [PhoneChecks.dcFeatures, PhoneChecks.oneRequest, PhoneChecks.shutdownAfterReply] {
            let result = report.result(for: check.id)
            #expect(result?.outcome == .pass, "\(check.id): \(result?.observed ?? "not run")")
        }
        #expect(report.succeeded, "\(report.humanText())")
        // The same silence is still a failure where the phone offered what the QR code needs.
        script.features = [.digitalCredentials]
        let silent = try ScriptedClient.run(script, hint: .digitalCredentialPresentation)
        #expect(silent.result(for: PhoneChecks.oneRequest.id)?.outcome == .fail)
    }

    @Test func aniPhoneOfferingBothTakesEitherRequest() throws {
        let json = try ScriptedClient.run(
            Self.sending(ScriptedClient.digitalCredentialJSON, features: [.ctap, .digitalCredentials]),
            hint: .digitalCredentialPresentation)
        #expect(json.result(for: PhoneChecks.dcFeatures.id)?.outcome == .pass)
        var ctap = ScriptedClient.Script()
        ctap.features = [.ctap, .digitalCredentials]
        let passkey = try ScriptedClient.run(ctap)
        #expect(passkey.result(for: PhoneChecks.dcFeatures.id)?.outcome == .pass)
        #expect(passkey.result(for: PhoneChecks.dcEnvelope.id)?.outcome == .skip)
    }

    struct Fault: CustomTestStringConvertible, Sendable {
        let name: String
        let check: ConformanceCheck
        var hint: HybridRequestType = .digitalCredentialPresentation
        let script: @Sendable () -> ScriptedClient.Script
        var testDescription: String { name }
    }

    static let faults: [Fault] = [
        Fault(name: "JSON to a phone that offered only \"ctap\"", check: PhoneChecks.dcFeatures) {
            sending(ScriptedClient.digitalCredentialJSON, features: [.ctap])
        },
        Fault(name: "CTAP to a phone that offered only \"dc\"", check: PhoneChecks.dcFeatures, hint: .makeCredential) {
            var script = ScriptedClient.Script()
            script.features = [.digitalCredentials]
            return script
        },
        Fault(name: "JSON cut short", check: PhoneChecks.dcJSON) {
            sending(String(ScriptedClient.digitalCredentialJSON.dropLast(2)))
        },
        Fault(name: "nested deeper than Chromium's JSON reader reads (200 levels)", check: PhoneChecks.dcJSON) {
            sending(chromium(replacing: #""n-0S6_WzA2Mj""#, with: nested(levels: 200)))
        },
        Fault(name: "a lone surrogate", check: PhoneChecks.dcJSON) {
            sending(chromium(replacing: "n-0S6_WzA2Mj", with: #"\ud800"#))
        },
        Fault(name: "requestType credential.create for a dcp QR code", check: PhoneChecks.dcEnvelope) {
            sending(chromium(replacing: "credential.get", with: "credential.create"))
        },
        Fault(name: "no origin", check: PhoneChecks.dcEnvelope) {
            sending(chromium(replacing: #""origin":"https://example.com","#, with: ""))
        },
        Fault(name: "an origin with a path", check: PhoneChecks.dcEnvelope) {
            sending(chromium(replacing: #""https://example.com""#, with: #""https://example.com/login""#))
        },
        Fault(name: "an origin with its default port", check: PhoneChecks.dcEnvelope) {
            sending(chromium(replacing: #""https://example.com""#, with: #""https://example.com:443""#))
        },
        Fault(name: "a member Chromium does not send", check: PhoneChecks.dcEnvelope) {
            sending(
                chromium(
                    replacing: #""requestType":"credential.get"}"#,
                    with: #""requestType":"credential.get","version":1}"#))
        },
        Fault(name: "the requests without the digital wrapper", check: PhoneChecks.dcEnvelope) {
            sending(
                #"{"origin":"https://example.com","request":{"requests":[{"data":{},"protocol":"x"}]},"requestType":"credential.get"}"#
            )
        },
        Fault(name: "no requests", check: PhoneChecks.dcEnvelope) {
            sending(
                #"{"origin":"https://example.com","request":{"digital":{"requests":[]}},"requestType":"credential.get"}"#
            )
        },
        Fault(name: "data that is a number", check: PhoneChecks.dcEnvelope) {
            sending(
                #"{"origin":"https://example.com","request":{"digital":{"requests":[{"data":7,"protocol":"x"}]}},"requestType":"credential.get"}"#
            )
        },
        Fault(name: "the envelope as an array", check: PhoneChecks.dcEnvelope) {
            sending(#"[{"origin":"https://example.com"}]"#)
        },
    ]

    @Test(arguments: faults) func faultIsCaughtByItsCheck(_ fault: Fault) throws {
        let report = try ScriptedClient.run(fault.script(), hint: fault.hint)
        let result = report.result(for: fault.check.id)
        #expect(result?.outcome == .fail, "\(fault.name): \(result?.observed ?? "not run")")
        #expect(!report.succeeded)
    }

    /// `levels` arrays inside each other (the innermost holds 0).
    static func nested(levels: Int) -> String {
        String(repeating: "[", count: levels) + "0" + String(repeating: "]", count: levels)
    }

    /// JSON that RFC 8259 allows and our phone refuses: a warning of `phone.dc.json-bounds`, and
    /// `phone.dc.json` passes. The nonce sits 6 levels down (envelope, request, digital, requests,
    /// the entry, data), so 30 arrays in its place make 36 levels.
    @Test(arguments: [
        (
            "a member name twice",
            chromium(
                replacing: #"{"origin":"https://example.com","#,
                with: #"{"origin":"https://evil.example","origin":"https://example.com","#)
        ),
        ("36 levels", chromium(replacing: #""n-0S6_WzA2Mj""#, with: nested(levels: 30))),
    ])
    func beyondOurPhonesBoundsIsAWarning(_ name: String, _ json: String) throws {
        let report = try ScriptedClient.run(Self.sending(json), hint: .digitalCredentialPresentation)
        let bounds = report.result(for: PhoneChecks.dcJSONBounds.id)
        #expect(bounds?.outcome == .warn, "\(name): \(bounds?.observed ?? "not run")")
        #expect(report.result(for: PhoneChecks.dcJSON.id)?.outcome == .pass, "\(name)")
        #expect(report.succeeded, "\(name): \(report.humanText())")
    }

    /// Valid JSON that `base::WriteJson` would write otherwise: a warning, not a failure (CTAP 2.3
    /// asks for JSON, not for Chromium's form of it).
    @Test(arguments: [
        ("whitespace", chromium(replacing: #"{"origin":"#, with: #"{ "origin": "#)),
        (
            "members not sorted",
            chromium(
                replacing: #""nonce":"n-0S6_WzA2Mj","response_type":"vp_token""#,
                with: #""response_type":"vp_token","nonce":"n-0S6_WzA2Mj""#)
        ),
        ("< not escaped as \\u003C", chromium(replacing: "n-0S6_WzA2Mj", with: "n<1")),
        ("a solidus escaped", chromium(replacing: #""https://example.com""#, with: #""https:\/\/example.com""#)),
    ])
    func nonChromiumFormIsAWarning(_ name: String, _ json: String) throws {
        let report = try ScriptedClient.run(Self.sending(json), hint: .digitalCredentialPresentation)
        let result = report.result(for: PhoneChecks.dcCanonical.id)
        #expect(result?.outcome == .warn, "\(name): \(result?.observed ?? "not run")")
        #expect(report.result(for: PhoneChecks.dcEnvelope.id)?.outcome == .pass)
        #expect(report.succeeded)
    }
}
