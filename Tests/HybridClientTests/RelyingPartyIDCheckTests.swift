import Testing

@testable import HybridClient

/// Origin parsing and the RP ID decision, as a browser makes them. Expected outcomes follow WebAuthn L3
/// §5.1.3/§5.1.4.1, the HTML "registrable domain suffix" algorithm and the Public Suffix List.
@Suite struct RelyingPartyIDCheckTests {
    enum Outcome: Sendable, Equatable {
        case allowed(String)
        case rejected(OriginError)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var origin: String
        var rpID: String?
        var outcome: Outcome
        var testDescription: String { "\(origin) rpId=\(rpID ?? "nil")" }
    }

    static let cases: [Case] = [
        // Allowed.
        .init(origin: "https://example.com", rpID: nil, outcome: .allowed("example.com")),
        .init(origin: "https://example.com", rpID: "example.com", outcome: .allowed("example.com")),
        .init(origin: "https://login.example.com", rpID: "example.com", outcome: .allowed("example.com")),
        .init(origin: "https://a.b.example.com:8443", rpID: "b.example.com", outcome: .allowed("b.example.com")),
        .init(origin: "https://login.example.co.uk", rpID: "example.co.uk", outcome: .allowed("example.co.uk")),
        .init(origin: "https://me.github.io", rpID: "me.github.io", outcome: .allowed("me.github.io")),
        .init(origin: "https://Login.Example.COM/", rpID: nil, outcome: .allowed("login.example.com")),
        .init(origin: "http://localhost:8080", rpID: nil, outcome: .allowed("localhost")),
        .init(origin: "http://localhost", rpID: "localhost", outcome: .allowed("localhost")),
        .init(origin: "http://app.localhost", rpID: "localhost", outcome: .allowed("localhost")),
        .init(origin: "http://127.0.0.1:3000", rpID: "127.0.0.1", outcome: .allowed("127.0.0.1")),
        .init(origin: "https://192.0.2.1", rpID: nil, outcome: .allowed("192.0.2.1")),
        .init(origin: "http://[::1]:8080", rpID: nil, outcome: .allowed("::1")),
        .init(origin: "https://xn--bcher-kva.example", rpID: nil, outcome: .allowed("xn--bcher-kva.example")),
        // Wrong or foreign RP IDs.
        .init(
            origin: "https://example.com",
            rpID: "login.example.com",
            outcome: .rejected(.rpIDNotAllowedForOrigin(rpID: "login.example.com", host: "example.com"))
        ),
        .init(
            origin: "https://example.com",
            rpID: "other.com",
            outcome: .rejected(.rpIDNotAllowedForOrigin(rpID: "other.com", host: "example.com"))
        ),
        .init(
            origin: "https://badexample.com",
            rpID: "example.com",
            outcome: .rejected(.rpIDNotAllowedForOrigin(rpID: "example.com", host: "badexample.com"))
        ),
        .init(
            origin: "https://example.com.evil.net",
            rpID: "example.com",
            outcome: .rejected(.rpIDNotAllowedForOrigin(rpID: "example.com", host: "example.com.evil.net"))
        ),
        // Public suffixes.
        .init(origin: "https://example.com", rpID: "com", outcome: .rejected(.rpIDIsPublicSuffix("com"))),
        .init(origin: "https://example.co.uk", rpID: "co.uk", outcome: .rejected(.rpIDIsPublicSuffix("co.uk"))),
        .init(origin: "https://example.co.uk", rpID: "uk", outcome: .rejected(.rpIDIsPublicSuffix("uk"))),
        .init(origin: "https://me.github.io", rpID: "github.io", outcome: .rejected(.rpIDIsPublicSuffix("github.io"))),
        .init(origin: "https://me.github.io", rpID: "io", outcome: .rejected(.rpIDIsPublicSuffix("io"))),
        .init(origin: "https://intranet", rpID: nil, outcome: .rejected(.rpIDIsPublicSuffix("intranet"))),
        // IP addresses are never suffix targets.
        .init(
            origin: "https://192.0.2.1",
            rpID: "0.2.1",
            outcome: .rejected(.rpIDNotAllowedForOrigin(rpID: "0.2.1", host: "192.0.2.1"))
        ),
        .init(
            origin: "https://10.1.2.3",
            rpID: "2.3",
            outcome: .rejected(.rpIDNotAllowedForOrigin(rpID: "2.3", host: "10.1.2.3"))
        ),
        .init(
            origin: "https://example.com",
            rpID: "192.0.2.1",
            outcome: .rejected(.rpIDNotAllowedForOrigin(rpID: "192.0.2.1", host: "example.com"))
        ),
        // Malformed RP IDs.
        .init(origin: "https://example.com", rpID: "", outcome: .rejected(.malformedRPID(""))),
        .init(origin: "https://example.com", rpID: "Example.com", outcome: .rejected(.malformedRPID("Example.com"))),
        .init(origin: "https://example.com", rpID: "example.com.", outcome: .rejected(.malformedRPID("example.com."))),
        .init(origin: "https://example.com", rpID: ".example.com", outcome: .rejected(.malformedRPID(".example.com"))),
        .init(origin: "https://example.com", rpID: "exa mple.com", outcome: .rejected(.malformedRPID("exa mple.com"))),
        .init(origin: "https://bücher.example", rpID: nil, outcome: .rejected(.unsupportedHost("bücher.example"))),
        // Insecure or malformed origins.
        .init(origin: "http://example.com", rpID: nil, outcome: .rejected(.insecureOrigin("http://example.com"))),
        .init(origin: "http://192.0.2.1", rpID: nil, outcome: .rejected(.insecureOrigin("http://192.0.2.1"))),
        .init(origin: "ftp://example.com", rpID: nil, outcome: .rejected(.insecureOrigin("ftp://example.com"))),
        .init(origin: "example.com", rpID: nil, outcome: .rejected(.malformedOrigin("example.com"))),
        .init(origin: "https://", rpID: nil, outcome: .rejected(.malformedOrigin("https://"))),
        .init(
            origin: "https://example.com/path",
            rpID: nil,
            outcome: .rejected(.malformedOrigin("https://example.com/path"))
        ),
        .init(
            origin: "https://user@example.com",
            rpID: nil,
            outcome: .rejected(.malformedOrigin("https://user@example.com"))
        ),
        .init(
            origin: "https://example.com:99999",
            rpID: nil,
            outcome: .rejected(.malformedOrigin("https://example.com:99999"))
        ),
        .init(origin: "https://example.com:", rpID: nil, outcome: .rejected(.malformedOrigin("https://example.com:"))),
        .init(origin: "https://1.2.3.999", rpID: nil, outcome: .rejected(.unsupportedHost("1.2.3.999"))),
    ]

    @Test(arguments: cases)
    func rpIDDecision(_ testCase: Case) {
        let outcome: Outcome
        do throws(OriginError) {
            let origin = try WebOrigin(testCase.origin)
            outcome = .allowed(try RelyingPartyIDCheck.effectiveRPID(requested: testCase.rpID, origin: origin))
        } catch {
            outcome = .rejected(error)
        }
        #expect(outcome == testCase.outcome)
    }

    @Test func originSerialization() throws {
        let cases: [(String, String)] = [
            ("https://example.com", "https://example.com"),
            ("https://EXAMPLE.com:443", "https://example.com"),
            ("https://example.com:8443/", "https://example.com:8443"),
            ("http://localhost:80", "http://localhost"),
            ("https://[2001:DB8:0:0:0:0:0:1]:444", "https://[2001:db8::1]:444"),
            ("https://[2001:db8:0:1:0:0:1:0]", "https://[2001:db8:0:1::1:0]"),
        ]
        for (input, expected) in cases {
            #expect(try WebOrigin(input).serialization == expected)
        }
    }
}
