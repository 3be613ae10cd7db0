import Foundation
import FoundationXML
import HybridConformance
import Testing

/// The report formats, read back by independent parsers (Foundation's JSON and libxml2).
@Suite struct ConformanceReportTests {
    static let required = ConformanceCheck(
        id: "relay.example.required", title: "does the thing", reference: "protocol.md §5.1",
        source: "RFC 6455 §4.2.2 (MUST)")
    static let advice = ConformanceCheck(
        id: "relay.example.advice", title: "does the nice thing", reference: "protocol.md §5.4",
        source: "advice: our relay's choice", required: false)
    static let other = ConformanceCheck(
        id: "relay.example.other", title: "other", reference: "CTAP 2.3 §6.1", source: "CTAP 2.3 §6.1 <MUST> & more")

    static func sample() -> ConformanceReport {
        var report = ConformanceReport(mode: "relay", subject: "http://127.0.0.1:1/ & <x>")
        report.pass(required, observed: "echoed \"fido.cable\"")
        report.fail(advice, observed: "took 9 s")  // a recommendation: recorded as warn
        report.fail(other, observed: "status 200 <expected 404> & \u{01}")
        report.skip(required, because: "needs --slow")
        return report
    }

    @Test func aFailedRecommendationIsAWarningAndOnlyFailuresFailTheRun() {
        let report = Self.sample()
        #expect(report.results.map(\.outcome) == [.pass, .warn, .fail, .skip])
        #expect(!report.succeeded)
        var clean = ConformanceReport(mode: "relay", subject: "x")
        clean.fail(Self.advice, observed: "slow")
        clean.skip(Self.other, because: "not asked")
        #expect(clean.succeeded)
    }

    @Test func humanTextHasALinePerCheckAndTheCounts() {
        let text = Self.sample().humanText()
        #expect(text.contains("FAIL relay.example.other  other  (CTAP 2.3 §6.1)\n     status 200 <expected 404>"))
        // Three of the four results are of required checks (the pass, the fail and the skip).
        #expect(
            text.hasSuffix("relay http://127.0.0.1:1/ & <x>: 3 required, 1 passed, 1 failed, 1 warnings, 1 skipped\n"))
    }

    @Test func jsonCarriesEveryCheck() throws {
        let object = try JSONSerialization.jsonObject(with: Self.sample().jsonData()) as? [String: Any]
        #expect(object?["mode"] as? String == "relay")
        #expect(object?["succeeded"] as? Bool == false)
        let counts = object?["counts"] as? [String: Int]
        #expect(counts == ["required": 3, "pass": 1, "fail": 1, "warn": 1, "skip": 1])
        #expect(object?["summary"] as? String == Self.sample().summaryLine)
        let checks = try #require(object?["checks"] as? [[String: Any]])
        #expect(
            checks.map { $0["id"] as? String } == [
                "relay.example.required", "relay.example.advice", "relay.example.other", "relay.example.required",
            ])
        #expect(checks[1]["required"] as? Bool == false)
        #expect(checks[2]["result"] as? String == "fail")
        #expect(checks[0]["observed"] as? String == "echoed \"fido.cable\"")
        #expect(
            checks.map { $0["source"] as? String } == [
                "RFC 6455 §4.2.2 (MUST)", "advice: our relay's choice", "CTAP 2.3 §6.1 <MUST> & more",
                "RFC 6455 §4.2.2 (MUST)",
            ])
    }

    @Test func junitIsWellFormedAndCounts() throws {
        let document = try XMLDocument(xmlString: Self.sample().junitXML())
        let suite = try #require(try document.nodes(forXPath: "/testsuites/testsuite").first as? XMLElement)
        #expect(suite.attribute(forName: "tests")?.stringValue == "4")
        #expect(suite.attribute(forName: "failures")?.stringValue == "1")
        #expect(suite.attribute(forName: "skipped")?.stringValue == "1")
        let failures = try document.nodes(forXPath: "//testcase[failure]/@name").map { $0.stringValue }
        #expect(failures == ["relay.example.other"])
        let message = try document.nodes(forXPath: "//failure/@message").first?.stringValue
        #expect(
            message
                == "other (CTAP 2.3 §6.1; source: CTAP 2.3 §6.1 <MUST> & more): status 200 <expected 404> & \u{FFFD}")
        let sources = try document.nodes(forXPath: "//testcase/properties/property[@name='source']/@value").map {
            $0.stringValue
        }
        #expect(sources.count == 4)
        #expect(sources[2] == "CTAP 2.3 §6.1 <MUST> & more")
        let levels = try document.nodes(forXPath: "//testcase/properties/property[@name='level']/@value").map {
            $0.stringValue
        }
        #expect(levels == ["required", "optional", "required", "required"])
        let summary = try document.nodes(forXPath: "//testsuite/properties/property[@name='summary']/@value").first
        #expect(summary?.stringValue == Self.sample().summaryLine)
        let subject = try document.nodes(forXPath: "//property[@name='subject']/@value").first?.stringValue
        #expect(subject == "http://127.0.0.1:1/ & <x>")
        #expect(try document.nodes(forXPath: "//testcase[system-out]").count == 1)
    }
}
