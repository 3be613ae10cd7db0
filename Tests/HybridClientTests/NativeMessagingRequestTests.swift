import Foundation
import Testing

@testable import HybridClient
@testable import hybrid_client

/// The extension's messages to the host: each refused message has a typed answer (WebAuthn's
/// error names where the page is at fault), never a crash.
@Suite struct NativeMessagingRequestTests {
    static let creation =
        #"{"challenge":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8","rp":{"id":"localhost","name":"Test"},"#
        + #""user":{"id":"AQIDBA","name":"alice","displayName":"Alice"},"pubKeyCredParams":[{"type":"public-key","alg":-7}],"timeout":30000}"#

    static func message(_ text: String) throws(NativeMessagingRequestError) -> NativeMessagingRequest {
        try NativeMessagingRequest(json: Array(text.utf8))
    }

    static func refusal(_ text: String) -> NativeMessagingRequestError? {
        do {
            _ = try message(text)
            return nil
        } catch { return error }
    }

    @Test func createCarriesTheOriginAndTimeout() throws {
        let request = try Self.message(
            #"{"type":"create","id":"r1","origin":"http://localhost:8123","options":"# + Self.creation + "}")
        guard case .ceremony(let id, .registration(let ceremony), let timeout) = request else {
            Issue.record("not a registration: \(request)")
            return
        }
        #expect(id == "r1")
        #expect(ceremony.origin.serialization == "http://localhost:8123")
        #expect(ceremony.rpID == "localhost")
        #expect(timeout == 30000)
    }

    @Test func getAndAbortAndHello() throws {
        let get = try Self.message(
            #"{"type":"get","id":"r-2","origin":"https://www.example.com","options":{"challenge":"AAAA","rpId":"example.com"}}"#
        )
        guard case .ceremony("r-2", .authentication(let ceremony), nil) = get else {
            Issue.record("not an authentication: \(get)")
            return
        }
        #expect(ceremony.rpID == "example.com")
        guard case .abort("r-2") = try Self.message(#"{"type":"abort","id":"r-2"}"#) else {
            Issue.record("not an abort")
            return
        }
        guard case .hello = try Self.message(#"{"type":"hello"}"#) else {
            Issue.record("not hello")
            return
        }
    }

    /// WebAuthn §5.1.3 step 8 (as the browser checks it): an RP ID that is not the origin's
    /// registrable suffix is a SecurityError, before any QR code.
    @Test func rpIDOfAnotherSiteIsSecurityError() throws {
        let refusal = Self.refusal(
            #"{"type":"create","id":"r3","origin":"http://localhost:8123","options":"#
                + Self.creation.replacingOccurrences(of: #""id":"localhost""#, with: #""id":"example.com""#) + "}")
        #expect(
            refusal
                == NativeMessagingRequestError(
                    id: "r3", kind: .origin(.rpIDNotAllowedForOrigin(rpID: "example.com", host: "localhost"))))
        #expect(
            NativeMessagingAnswer(refusal: try #require(refusal))
                == .error(
                    id: "r3", name: .security,
                    message: "RP ID \"example.com\" is not localhost or a registrable suffix of it"))
        let insecure = Self.refusal(
            #"{"type":"get","id":"r4","origin":"http://example.com","options":{"challenge":"AAAA"}}"#)
        #expect(insecure?.kind == .origin(.insecureOrigin("http://example.com")))
    }

    @Test func badMessagesAreTypedRefusals() {
        let cases: [(String, String?)] = [
            ("not json", nil), ("[]", nil), (#"{"id":"a"}"#, nil), (#"{"type":"create","id":""}"#, nil),
            (#"{"type":"create","id":"a b"}"#, nil),
            (#"{"type":"create","id":"\#(String(repeating: "x", count: 65))"}"#, nil),
            (#"{"type":"frobnicate","id":"a"}"#, "a"), (#"{"type":"create","id":"a","options":{}}"#, "a"),
            (#"{"type":"create","id":"a","origin":"http://localhost"}"#, "a"),
            (#"{"type":"digital","id":"a","origin":"http://localhost"}"#, "a"),
        ]
        for (text, id) in cases {
            let refusal = Self.refusal(text)
            guard case .malformedMessage = refusal?.kind else {
                Issue.record("\(text): \(String(describing: refusal))")
                continue
            }
            #expect(refusal?.id == id, "\(text)")
        }
    }

    @Test func invalidOptionsAreTypeError() throws {
        let refusal = try #require(
            Self.refusal(#"{"type":"create","id":"a","origin":"http://localhost","options":{"challenge":"!!"}}"#))
        guard case .error("a", .type, _) = NativeMessagingAnswer(refusal: refusal) else {
            Issue.record("\(refusal)")
            return
        }
        let digital = try #require(
            Self.refusal(#"{"type":"digital","id":"d","origin":"http://localhost","request":{"requests":[]}}"#))
        guard case .invalidOptions = digital.kind else {
            Issue.record("\(digital)")
            return
        }
    }

    /// The answers' JSON, as the extension reads it.
    @Test func answersAreCompactJSON() {
        #expect(String(decoding: NativeMessagingAnswer.hello.json, as: UTF8.self) == #"{"type":"hello","version":1}"#)
        #expect(
            String(
                decoding: NativeMessagingAnswer.error(id: nil, name: .hostProtocol, message: "x").json, as: UTF8.self)
                == #"{"id":null,"message":"x","name":"HostProtocolError","type":"error"}"#)
        #expect(
            String(
                decoding: NativeMessagingAnswer.result(id: "a", credential: Array(#"{"id":"AQ"}"#.utf8)).json,
                as: UTF8.self)
                == #"{"credential":{"id":"AQ"},"id":"a","type":"result"}"#)
        #expect(
            NativeMessagingAnswer(id: "a", failure: .credentialExcluded)
                == .error(id: "a", name: .invalidState, message: HybridClientError.credentialExcluded.description))
        guard case .error("a", .notAllowed, _) = NativeMessagingAnswer(id: "a", failure: .noCredentials) else {
            Issue.record("noCredentials")
            return
        }
    }

    @Test func settingsAllowOnlyConnectionFlags() throws {
        let settings = try NativeMessagingHostSettings(
            text: "# relay\n--ble sim\n\n--tunnel-server 0=ws://127.0.0.1:1 # local\n--no-window\n")
        #expect(
            settings.arguments == ["--window", "--ble", "sim", "--tunnel-server", "0=ws://127.0.0.1:1", "--no-window"])
        #expect(settings.qrURLFile == nil)
        #expect(try NativeMessagingHostSettings(text: "--qr-url-file /run/t/qr").qrURLFile == "/run/t/qr")
        #expect(throws: NativeMessagingSettingsError.self) {
            try NativeMessagingHostSettings(text: "--qr-url-file rel")
        }
        #expect(throws: NativeMessagingSettingsError(line: 1, text: "--origin https://evil.example")) {
            try NativeMessagingHostSettings(text: "--origin https://evil.example")
        }
        #expect(throws: NativeMessagingSettingsError.self) { try NativeMessagingHostSettings(text: "--ble") }
        #expect(throws: NativeMessagingSettingsError.self) { try NativeMessagingHostSettings(text: "--json") }
    }

    /// Firefox starts the host in the manifest path's directory, the WebExtensions portal in its
    /// own working directory: a file named in the settings must not depend on which.
    @Test func settingsFilesAreAbsolutePaths() throws {
        #expect(
            try NativeMessagingHostSettings(text: "--ca-file /etc/hybrid/ca.pem").arguments
                == ["--window", "--ca-file", "/etc/hybrid/ca.pem"])
        #expect(throws: NativeMessagingSettingsError(line: 2, text: "--ca-file ca.pem")) {
            try NativeMessagingHostSettings(text: "--ble sim\n--ca-file ca.pem")
        }
        #expect(throws: NativeMessagingSettingsError.self) {
            try NativeMessagingHostSettings(text: "--ca-file ./certs/ca.pem")
        }
    }
}
