import TestVectorFiles
import Testing

@testable import HybridCore

@Suite struct TunnelURLTests {
    @Test func sharedVectors() { VectorFiles.expectAllPass("tunnelURL.json") }

    /// RFC 4648 §10 test strings, in their base64url forms without padding.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"),
        ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ])
    func base64URLKnownAnswers(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func base64URLUsesURLAlphabetAndRejectsOthers() {
        #expect(Base64URL.encode([0xfb, 0xff, 0xbf]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xfb, 0xff, 0xbf])
        #expect(Base64URL.decode("+/+/") == nil)
        #expect(Base64URL.decode("Zg==") == nil)
        #expect(Base64URL.decode("Zh") == nil)  // non-zero unused bits
        #expect(Base64URL.decode("Zm9vY") == nil)  // length ≡ 1 (mod 4)
    }

    @Test func originParsing() throws {
        let local = try TunnelServerOrigin(parsing: "ws://127.0.0.1:8080/")
        #expect(local == TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: 8080))
        #expect(local.description == "ws://127.0.0.1:8080")
        let v6 = try TunnelServerOrigin(parsing: "wss://[::1]:9443")
        #expect(v6.host == "::1" && v6.port == 9443 && v6.authority == "[::1]:9443")
        #expect(try TunnelServerOrigin(parsing: "wss://cable.ua5v.com").effectivePort == 443)
        #expect(throws: TunnelServerOriginError.unsupportedScheme) { try TunnelServerOrigin(parsing: "http://x") }
        #expect(throws: TunnelServerOriginError.invalidPort) { try TunnelServerOrigin(parsing: "ws://x:0") }
        #expect(throws: TunnelServerOriginError.invalidPort) { try TunnelServerOrigin(parsing: "ws://x:70000") }
        #expect(throws: TunnelServerOriginError.unexpectedPath) { try TunnelServerOrigin(parsing: "ws://x/cable") }
        #expect(throws: TunnelServerOriginError.invalidHost) { try TunnelServerOrigin(parsing: "ws://") }
    }
}
