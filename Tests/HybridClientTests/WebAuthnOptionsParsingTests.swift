import Foundation
import HybridCore
import Testing

@testable import HybridClient

/// Options JSON as relying parties send it. Expected values are the literal inputs, decoded by hand.
@Suite struct WebAuthnOptionsParsingTests {
    // "challenge" = base64url of bytes 00 01 … 0f; "user.id" = "dXNlcg" = "user".
    static let creation = """
        {
          "rp": {"id": "example.com", "name": "Example"},
          "user": {"id": "dXNlcg", "name": "alice@example.com", "displayName": "Alice"},
          "challenge": "AAECAwQFBgcICQoLDA0ODw",
          "pubKeyCredParams": [{"type": "public-key", "alg": -7}, {"type": "future-type", "alg": -8},
                               {"type": "public-key", "alg": -257}],
          "timeout": 60000,
          "excludeCredentials": [{"type": "public-key", "id": "AQID", "transports": ["usb", "hybrid", "carrier-pigeon"]}],
          "authenticatorSelection": {"residentKey": "required", "requireResidentKey": true,
                                     "userVerification": "discouraged", "authenticatorAttachment": "cross-platform"},
          "attestation": "direct",
          "hints": ["hybrid", "unknown-hint"],
          "extensions": {"credProps": true, "somethingNew": {"a": 1}}
        }
        """

    @Test func creationOptionsFullDocument() throws {
        let options = try PublicKeyCredentialCreationOptionsJSON(json: Data(Self.creation.utf8))
        #expect(options.rp == .init(id: "example.com", name: "Example"))
        #expect(options.user == .init(id: Array("user".utf8), name: "alice@example.com", displayName: "Alice"))
        #expect(options.challenge == Array(0...15))
        #expect(options.pubKeyCredParams.map(\.alg) == [-7, -257])
        #expect(options.timeout == 60000)
        #expect(options.excludeCredentials == [.init(id: [1, 2, 3], transports: [.usb, .hybrid])])
        #expect(options.authenticatorSelection.effectiveResidentKey == .required)
        #expect(options.authenticatorSelection.userVerification == .discouraged)
        #expect(options.authenticatorSelection.authenticatorAttachment == .crossPlatform)
        #expect(options.attestation == .direct)
        #expect(options.hints == [.hybrid])
        #expect(options.ignoredExtensions == ["somethingNew"])
        #expect(options.extensions.credProps)
    }

    @Test func creationOptionsDefaults() throws {
        let json = """
            {"rp": {"name": "Example"}, "user": {"id": "AA", "name": "a", "displayName": "A"},
             "challenge": "AAAA", "pubKeyCredParams": []}
            """
        let options = try PublicKeyCredentialCreationOptionsJSON(json: Data(json.utf8))
        #expect(options.rp.id == nil)
        #expect(options.pubKeyCredParams.map(\.alg) == [-7, -257])
        #expect(options.timeout == nil)
        #expect(options.excludeCredentials.isEmpty)
        #expect(options.authenticatorSelection.effectiveResidentKey == .discouraged)
        #expect(options.authenticatorSelection.userVerification == .preferred)
        #expect(options.attestation == AttestationConveyancePreference.none)
        #expect(options.ignoredExtensions.isEmpty)
    }

    @Test func legacyRequireResidentKeyAndUnknownEnumValues() throws {
        let json = """
            {"rp": {"name": "E"}, "user": {"id": "AA", "name": "a", "displayName": "A"}, "challenge": "AAAA",
             "pubKeyCredParams": [{"type": "public-key", "alg": -7}],
             "authenticatorSelection": {"residentKey": "sometimes", "requireResidentKey": true, "userVerification": "maybe"},
             "attestation": "everything"}
            """
        let options = try PublicKeyCredentialCreationOptionsJSON(json: Data(json.utf8))
        #expect(options.authenticatorSelection.residentKey == nil)
        #expect(options.authenticatorSelection.effectiveResidentKey == .required)
        #expect(options.authenticatorSelection.userVerification == .preferred)
        #expect(options.attestation == AttestationConveyancePreference.none)
    }

    @Test func wrapperForm() throws {
        let wrapped = #"{"publicKey": \#(Self.creation), "mediation": "optional"}"#
        let bare = try PublicKeyCredentialCreationOptionsJSON(json: Data(Self.creation.utf8))
        #expect(try PublicKeyCredentialCreationOptionsJSON(json: Data(wrapped.utf8)) == bare)
    }

    static let requestJSON = """
        {"challenge": "_-8", "timeout": 30000, "rpId": "example.com",
         "allowCredentials": [{"type": "public-key", "id": "AQID", "transports": ["internal"]},
                              {"type": "other", "id": "BAUG"}],
         "userVerification": "required", "extensions": {"appid": "https://example.com"}}
        """

    @Test func requestOptions() throws {
        let options = try PublicKeyCredentialRequestOptionsJSON(json: Data(Self.requestJSON.utf8))
        #expect(options.challenge == [0xFF, 0xEF])
        #expect(options.timeout == 30000)
        #expect(options.rpId == "example.com")
        #expect(options.allowCredentials == [.init(id: [1, 2, 3], transports: [.internal])])
        #expect(options.userVerification == .required)
        #expect(options.ignoredExtensions == ["appid"])
        let wrapped = try PublicKeyCredentialRequestOptionsJSON(
            json: Data(#"{"publicKey": \#(Self.requestJSON)}"#.utf8)
        )
        #expect(wrapped == options)
    }

    @Test func requestOptionsMinimal() throws {
        let options = try PublicKeyCredentialRequestOptionsJSON(json: Data(#"{"challenge": "AAAA"}"#.utf8))
        #expect(options == .init(challenge: [0, 0, 0]))
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        var json: String
        var error: WebAuthnOptionsError
        var testDescription: String { "\(error)" }
    }

    static let user = #""user": {"id": "AA", "name": "a", "displayName": "A"}"#
    static let params = #""pubKeyCredParams": [{"type": "public-key", "alg": -7}]"#

    static let malformedCreation: [Malformed] = [
        .init(json: "{", error: .malformedJSON),
        .init(json: "", error: .malformedJSON),
        .init(json: "[1, 2]", error: .notAnObject),
        .init(json: "\"text\"", error: .notAnObject),
        .init(json: #"{"publicKey": 5}"#, error: .notAnObject),
        .init(json: #"{\#(user), "challenge": "AA", \#(params)}"#, error: .missingField("rp")),
        .init(json: #"{"rp": {}, \#(user), "challenge": "AA", \#(params)}"#, error: .missingField("rp.name")),
        .init(json: #"{"rp": {"name": "E"}, "challenge": "AA", \#(params)}"#, error: .missingField("user")),
        .init(
            json: #"{"rp": {"name": "E"}, "user": {"id": "AA", "name": "a"}, "challenge": "AA", \#(params)}"#,
            error: .missingField("user.displayName")
        ),
        .init(json: #"{"rp": {"name": "E"}, \#(user), \#(params)}"#, error: .missingField("challenge")),
        .init(
            json: #"{"rp": {"name": "E"}, \#(user), "challenge": null, \#(params)}"#,
            error: .missingField("challenge")
        ),
        .init(json: #"{"rp": {"name": "E"}, \#(user), "challenge": "AA"}"#, error: .missingField("pubKeyCredParams")),
        .init(json: #"{"rp": {"name": "E"}, \#(user), "challenge": 12, \#(params)}"#, error: .wrongType("challenge")),
        .init(
            json: #"{"rp": {"name": "E"}, \#(user), "challenge": "AA==A", \#(params)}"#,
            error: .invalidBase64URL("challenge")
        ),
        .init(
            json: #"{"rp": {"name": "E"}, \#(user), "challenge": "AA+/", \#(params)}"#,
            error: .invalidBase64URL("challenge")
        ),
        .init(
            json: #"{"rp": {"name": "E"}, \#(user), "challenge": "A", \#(params)}"#,
            error: .invalidBase64URL("challenge")
        ),
        .init(
            json:
                #"{"rp": {"name": "E"}, "user": {"id": "", "name": "a", "displayName": "A"}, "challenge": "AA", \#(params)}"#,
            error: .userIDLength(0)
        ),
        .init(
            json:
                #"{"rp": {"name": "E"}, "user": {"id": "\#(String(repeating: "A", count: 88))", "name": "a", "displayName": "A"}, "challenge": "AA", \#(params)}"#,
            error: .userIDLength(66)
        ),
        .init(
            json:
                #"{"rp": {"name": "E"}, "user": {"id": "A*", "name": "a", "displayName": "A"}, "challenge": "AA", \#(params)}"#,
            error: .invalidBase64URL("user.id")
        ),
        .init(
            json:
                #"{"rp": {"name": "E"}, \#(user), "challenge": "AA", "pubKeyCredParams": [{"type": "x", "alg": -7}]}"#,
            error: .noSupportedAlgorithm
        ),
        .init(
            json:
                #"{"rp": {"name": "E"}, \#(user), "challenge": "AA", "pubKeyCredParams": [{"type": "public-key", "alg": "ES256"}]}"#,
            error: .wrongType("pubKeyCredParams[0].alg")
        ),
        .init(
            json:
                #"{"rp": {"name": "E"}, \#(user), "challenge": "AA", "pubKeyCredParams": [{"type": "public-key", "alg": -7.5}]}"#,
            error: .valueOutOfRange("pubKeyCredParams[0].alg")
        ),
        .init(
            json:
                #"{"rp": {"name": "E"}, \#(user), "challenge": "AA", "pubKeyCredParams": [{"type": "public-key", "alg": 2147483648}]}"#,
            error: .valueOutOfRange("pubKeyCredParams[0].alg")
        ),
        .init(
            json: #"{"rp": {"name": "E"}, \#(user), "challenge": "AA", "pubKeyCredParams": [{"type": "public-key"}]}"#,
            error: .missingField("pubKeyCredParams[0].alg")
        ),
        .init(
            json: #"{"rp": {"name": "E"}, \#(user), "challenge": "AA", \#(params), "timeout": -1}"#,
            error: .valueOutOfRange("timeout")
        ),
        .init(
            json: #"{"rp": {"name": "E"}, \#(user), "challenge": "AA", \#(params), "timeout": "60"}"#,
            error: .wrongType("timeout")
        ),
        .init(
            json:
                #"{"rp": {"name": "E"}, \#(user), "challenge": "AA", \#(params), "excludeCredentials": [{"type": "public-key", "id": "AQ"}, {"type": "public-key", "id": "!"}]}"#,
            error: .invalidBase64URL("excludeCredentials[1].id")
        ),
        .init(
            json:
                #"{"rp": {"name": "E"}, \#(user), "challenge": "AA", \#(params), "excludeCredentials": [{"type": "public-key"}]}"#,
            error: .missingField("excludeCredentials[0].id")
        ),
        .init(
            json:
                #"{"rp": {"name": "E"}, \#(user), "challenge": "AA", \#(params), "authenticatorSelection": {"requireResidentKey": "yes"}}"#,
            error: .wrongType("authenticatorSelection.requireResidentKey")
        ),
        .init(
            json: #"{"rp": {"name": "E"}, \#(user), "challenge": "AA", \#(params), "extensions": []}"#,
            error: .wrongType("extensions")
        ),
        .init(
            json: #"{"publicKey": {"rp": {"name": "E"}, \#(user), \#(params)}}"#,
            error: .missingField("publicKey.challenge")
        ),
    ]

    @Test(arguments: malformedCreation)
    func malformedCreationOptions(_ testCase: Malformed) {
        #expect(throws: testCase.error) {
            try PublicKeyCredentialCreationOptionsJSON(json: Data(testCase.json.utf8))
        }
    }

    static let malformedRequest: [Malformed] = [
        .init(json: "{}", error: .missingField("challenge")),
        .init(json: #"{"challenge": ["AA"]}"#, error: .wrongType("challenge")),
        .init(json: #"{"challenge": "AA", "rpId": 7}"#, error: .wrongType("rpId")),
        .init(json: #"{"challenge": "AA", "allowCredentials": {"id": "AA"}}"#, error: .wrongType("allowCredentials")),
        .init(
            json: #"{"challenge": "AA", "allowCredentials": [{"id": "AA"}]}"#,
            error: .missingField("allowCredentials[0].type")
        ),
        .init(
            json: #"{"challenge": "AA", "allowCredentials": [{"type": "public-key", "id": "A A"}]}"#,
            error: .invalidBase64URL("allowCredentials[0].id")
        ),
        .init(json: #"{"challenge": "AA", "userVerification": 1}"#, error: .wrongType("userVerification")),
        .init(json: #"{"challenge": "AA", "timeout": 1.5}"#, error: .valueOutOfRange("timeout")),
        .init(json: #"{"challenge": "AA", "timeout": 4294967296}"#, error: .valueOutOfRange("timeout")),
    ]

    @Test(arguments: malformedRequest)
    func malformedRequestOptions(_ testCase: Malformed) {
        #expect(throws: testCase.error) {
            try PublicKeyCredentialRequestOptionsJSON(json: Data(testCase.json.utf8))
        }
    }

    @Test func quickBuilders() throws {
        let create = try PublicKeyCredentialCreationOptionsJSON.quick(
            rpID: "example.com",
            userName: "alice",
            userID: [7],
            challenge: [1, 2]
        )
        #expect(create.rp == .init(id: "example.com", name: "example.com"))
        #expect(create.user == .init(id: [7], name: "alice", displayName: "alice"))
        #expect(create.authenticatorSelection.effectiveResidentKey == .required)
        #expect(create.pubKeyCredParams.map(\.alg) == [-7, -257])
        #expect(throws: WebAuthnOptionsError.userIDLength(65)) {
            try PublicKeyCredentialCreationOptionsJSON.quick(
                rpID: "example.com",
                userName: "a",
                userID: .init(repeating: 0, count: 65),
                challenge: [1]
            )
        }
        let get = PublicKeyCredentialRequestOptionsJSON.quick(
            rpID: "example.com",
            challenge: [9],
            allowCredentialIDs: [[1]]
        )
        #expect(get.rpId == "example.com")
        #expect(get.allowCredentials == [.init(id: [1])])
    }

    @Test func base64URL() {
        // RFC 4648 §10 vectors, re-spelled in the URL alphabet without padding.
        let vectors: [(String, String)] = [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("+/8") == nil)
        #expect(Base64URL.decode("Z") == nil)
        // JSON members: correct padding is tolerated, wrong padding is not.
        #expect(WebAuthnJSONDecoding.base64URL("Zg==") == Array("f".utf8))
        #expect(WebAuthnJSONDecoding.base64URL("Zm8=") == Array("fo".utf8))
        #expect(WebAuthnJSONDecoding.base64URL("Zg=") == nil)
        #expect(WebAuthnJSONDecoding.base64URL("Zm9v=") == nil)
        #expect(WebAuthnJSONDecoding.base64URL("Zg===") == nil)
        #expect(WebAuthnJSONDecoding.base64URL("-_8") == [0xFB, 0xFF])
    }
}
