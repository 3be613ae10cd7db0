import Foundation
import Testing

@testable import HybridClient

/// The Public Suffix List's own test cases (`checkPublicSuffix(domain, registrableDomain)` in
/// test_psl.txt, shipped by Debian's `publicsuffix` package), run against our libpsl wrapper and
/// against the RP ID check built on it. Expected values come from the list's maintainers, not from us.
@Suite struct PublicSuffixListTests {
    static let testFile = "/usr/share/doc/publicsuffix/examples/test_psl.txt"

    struct Case: Sendable, CustomTestStringConvertible {
        var domain: String
        var registrable: String?
        var testDescription: String { "\(domain) → \(registrable ?? "null")" }
    }

    /// Every uncommented `checkPublicSuffix('a', 'b');` line with a non-null domain.
    static func cases() throws -> [Case] {
        let text = try String(contentsOfFile: testFile, encoding: .utf8)
        var cases: [Case] = []
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("checkPublicSuffix("), trimmed.hasSuffix(");") else { continue }
            let arguments = trimmed.dropFirst("checkPublicSuffix(".count).dropLast(2)
                .split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard arguments.count == 2 else { continue }
            func value(_ text: String) -> String? {
                text == "null" ? nil : String(text.dropFirst().dropLast())  // strip the quotes
            }
            guard let domain = value(arguments[0]) else { continue }
            cases.append(Case(domain: domain, registrable: value(arguments[1])))
        }
        return cases
    }

    @Test func registrableDomainsMatchTheListsTests() throws {
        try #require(
            FileManager.default.fileExists(atPath: Self.testFile), "apt-get install publicsuffix (test_psl.txt)")
        let cases = try Self.cases()
        #expect(cases.count >= 70, "parsed only \(cases.count) cases from \(Self.testFile)")
        for testCase in cases {
            #expect(
                PublicSuffixList.registrableDomain(of: testCase.domain) == testCase.registrable,
                "\(testCase.testDescription)")
        }
    }

    /// The same cases through the RP ID check: a registrable domain may be claimed from any host
    /// under it, and a name without one (a public suffix) may not be claimed from below it.
    @Test func rpIDCheckFollowsTheList() throws {
        try #require(
            FileManager.default.fileExists(atPath: Self.testFile), "apt-get install publicsuffix (test_psl.txt)")
        let ascii = try Self.cases().filter { $0.domain.allSatisfy(\.isASCII) && $0.domain == $0.domain.lowercased() }
            .filter { !$0.domain.hasPrefix(".") }
        #expect(ascii.count >= 50)
        for testCase in ascii {
            let origin = try WebOrigin("https://www.\(testCase.domain)")
            if let registrable = testCase.registrable {
                #expect(
                    try RelyingPartyIDCheck.effectiveRPID(requested: registrable, origin: origin) == registrable,
                    "\(testCase.testDescription)")
            } else {
                #expect(throws: OriginError.rpIDIsPublicSuffix(testCase.domain), "\(testCase.testDescription)") {
                    try RelyingPartyIDCheck.effectiveRPID(requested: testCase.domain, origin: origin)
                }
            }
        }
    }
}
