import Foundation
import Testing

@testable import HybridClient

/// clientDataJSON bytes and hash, checked against Python's `json` and `hashlib` (an independent
/// serializer: for ASCII members without control characters its compact output is byte-identical to
/// WebAuthn's CCDToString serialization) and against literal strings written from the specification.
@Suite struct ClientDataTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var ceremony: ClientData.Ceremony
        var challenge: [UInt8]
        var origin: String
        var testDescription: String { "\(ceremony.rawValue) \(origin)" }
    }

    static let cases: [Case] = [
        .init(ceremony: .create, challenge: Array(0..<32), origin: "https://example.com"),
        .init(ceremony: .get, challenge: [0xFB, 0xFF, 0xBF], origin: "https://login.example.co.uk:8443"),
        .init(ceremony: .create, challenge: [], origin: "http://localhost:8080"),
        .init(ceremony: .get, challenge: Array(repeating: 0xFF, count: 17), origin: "https://[2001:db8::1]"),
    ]

    /// Python builds the dictionary in WebAuthn's member order and serializes it compactly.
    static let pythonSerializer = """
        import base64, hashlib, json, sys
        kind, challenge_hex, origin = sys.stdin.read().split("\\n")
        challenge = base64.urlsafe_b64encode(bytes.fromhex(challenge_hex)).rstrip(b"=").decode()
        body = json.dumps({"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False},
                          separators=(",", ":")).encode()
        sys.stdout.write(body.hex() + "\\n" + hashlib.sha256(body).hexdigest())
        """

    @Test(arguments: cases)
    func matchesPythonJSON(_ testCase: Case) async throws {
        let origin = try WebOrigin(testCase.origin)
        let clientData = ClientData(ceremony: testCase.ceremony, challenge: testCase.challenge, origin: origin)
        let input = "\(testCase.ceremony.rawValue)\n\(hex(testCase.challenge))\n\(origin.serialization)"
        let output = String(
            decoding: try await ExternalTool.python(Self.pythonSerializer, input: Array(input.utf8)),
            as: UTF8.self
        )
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        try #require(lines.count == 2)
        #expect(hex(clientData.json) == lines[0])
        #expect(hex(clientData.hash) == lines[1])
    }

    @Test func literalFromSpecificationLayout() throws {
        // WebAuthn L3 §5.8.1.1: {"type":…,"challenge":…,"origin":…,"crossOrigin":false}, no spaces.
        let clientData = ClientData(
            ceremony: .get,
            challenge: Array("challenge".utf8),
            origin: try WebOrigin("HTTPS://Example.COM:443/")
        )
        let expected =
            #"{"type":"webauthn.get","challenge":"Y2hhbGxlbmdl","origin":"https://example.com","crossOrigin":false}"#
        #expect(String(decoding: clientData.json, as: UTF8.self) == expected)
    }

    @Test func ccdStringEscaping() {
        // CCDToString (WebAuthn L3 §5.8.1.2): only ", \ and code points < U+0020 are escaped, the latter
        // as \u plus four lower-case hex digits; everything else (DEL, non-ASCII) is copied as UTF-8.
        let cases: [(String, String)] = [
            ("plain", #""plain""#),
            ("a\"b", #""a\"b""#),
            ("a\\b", #""a\\b""#),
            ("\n\u{1F}\u{0}", #""\u000a\u001f\u0000""#),
            ("/\u{7F}é😀", "\"/\u{7F}é😀\""),
        ]
        for (input, expected) in cases {
            #expect(String(decoding: ClientData.ccdString(input), as: UTF8.self) == expected)
        }
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
