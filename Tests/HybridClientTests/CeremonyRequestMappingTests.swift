import Foundation
import HybridCTAP
import HybridCore
import Testing

@_spi(Fuzzing) @testable import HybridClient

/// Options → CTAP2 requests. The byte-level expectation is built by Python's `cbor2` (canonical mode)
/// from the clientDataJSON Python itself serializes; the option rules are Chromium's.
@Suite struct CeremonyRequestMappingTests {
    static let origin = "https://login.example.com"

    /// Python builds clientDataJSON, hashes it and writes the makeCredential map we expect, with
    /// the descriptor's transports removed and options {rk: true, uv: true}.
    static let expectedMakeCredential = """
        import base64, cbor2, hashlib, json, sys
        options = json.loads(sys.stdin.read())
        client_data = json.dumps({"type": "webauthn.create", "challenge": options["challenge"],
                                  "origin": "https://login.example.com", "crossOrigin": False}, separators=(",", ":"))
        b = lambda text: base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        request = {
            1: hashlib.sha256(client_data.encode()).digest(),
            2: {"id": options["rp"]["id"], "name": options["rp"]["name"]},
            3: {"id": b(options["user"]["id"]), "name": options["user"]["name"], "displayName": options["user"]["displayName"]},
            4: [{"alg": p["alg"], "type": p["type"]} for p in options["pubKeyCredParams"] if p["type"] == "public-key"],
            5: [{"id": b(d["id"]), "type": d["type"]} for d in options["excludeCredentials"]],
            7: {"rk": True, "uv": True},
        }
        sys.stdout.write((b"\\x01" + cbor2.dumps(request, canonical=True)).hex())
        """

    @Test func makeCredentialMatchesIndependentCBOR() async throws {
        try #require(await ExternalTool.hasPyWebAuthn, "pip install webauthn (brings cbor2)")
        let json = """
            {"rp": {"id": "example.com", "name": "Example"},
             "user": {"id": "dXNlcg", "name": "alice@example.com", "displayName": "Alice"},
             "challenge": "AAECAwQFBgcICQoLDA0ODw",
             "pubKeyCredParams": [{"type": "public-key", "alg": -7}, {"type": "public-key", "alg": -257}],
             "excludeCredentials": [{"type": "public-key", "id": "AQID", "transports": ["usb", "internal"]}],
             "authenticatorSelection": {"residentKey": "required", "userVerification": "preferred"}}
            """
        let options = try PublicKeyCredentialCreationOptionsJSON(json: Data(json.utf8))
        let ceremony = try RegistrationCeremony(options: options, origin: WebOrigin(Self.origin))
        let expected = String(
            decoding: try await ExternalTool.python(Self.expectedMakeCredential, input: Array(json.utf8)),
            as: UTF8.self
        )
        #expect(try Hex.encode(ceremony.makeCredentialRequest().encoded) == expected)
    }

    @Test func getAssertionMatchesIndependentCBOR() async throws {
        try #require(await ExternalTool.hasPyWebAuthn, "pip install webauthn (brings cbor2)")
        let options = PublicKeyCredentialRequestOptionsJSON(
            challenge: [9, 9, 9],
            rpId: "example.com",
            allowCredentials: [
                .init(id: [1, 2], transports: [.usb]), .init(id: [3], transports: [.hybrid, .internal]),
            ],
            userVerification: .required
        )
        let ceremony = try AuthenticationCeremony(options: options, origin: WebOrigin(Self.origin))
        let script = """
            import cbor2, hashlib, json, sys
            client_data = json.dumps({"type": "webauthn.get", "challenge": "CQkJ", "origin": "https://login.example.com",
                                      "crossOrigin": False}, separators=(",", ":"))
            request = {1: "example.com", 2: hashlib.sha256(client_data.encode()).digest(),
                       3: [{"id": b"\\x01\\x02", "type": "public-key"}, {"id": b"\\x03", "type": "public-key"}],
                       5: {"uv": True}}
            sys.stdout.write((b"\\x02" + cbor2.dumps(request, canonical=True)).hex())
            """
        let expected = String(decoding: try await ExternalTool.python(script), as: UTF8.self)
        #expect(Hex.encode(ceremony.getAssertionRequest().encoded) == expected)
    }

    struct OptionCase: Sendable, CustomTestStringConvertible {
        var residentKey: ResidentKeyRequirement
        var userVerification: UserVerificationRequirement
        var info: [String: Bool]?  // getInfo options; nil = getInfo unknown
        var rk: Bool?
        var uv: Bool?
        /// `uv` of a getAssertion with an allow list, when it differs from the makeCredential's
        /// (Chromium requires UV for a resident key).
        var assertionUV: Bool??
        var testDescription: String {
            "rk=\(residentKey) uv=\(userVerification) info=\(info.map { "\($0)" } ?? "unknown")"
        }
    }

    static let optionCases: [OptionCase] = [
        .init(residentKey: .required, userVerification: .required, info: nil, rk: true, uv: true),
        .init(residentKey: .preferred, userVerification: .preferred, info: nil, rk: true, uv: true),
        .init(residentKey: .discouraged, userVerification: .discouraged, info: nil, rk: nil, uv: nil),
        .init(
            residentKey: .preferred,
            userVerification: .preferred,
            info: ["rk": true, "uv": true],
            rk: true,
            uv: true
        ),
        .init(
            residentKey: .preferred,
            userVerification: .preferred,
            info: ["rk": false, "uv": false],
            rk: nil,
            uv: nil
        ),
        .init(residentKey: .preferred, userVerification: .preferred, info: [:], rk: nil, uv: nil),
        .init(
            residentKey: .required,
            userVerification: .required,
            info: ["rk": false, "uv": false],
            rk: true,
            uv: true
        ),
        .init(residentKey: .discouraged, userVerification: .preferred, info: ["uv": true], rk: nil, uv: true),
        .init(
            residentKey: .required, userVerification: .discouraged, info: nil, rk: true, uv: true,
            assertionUV: .some(nil)),
        .init(
            residentKey: .required, userVerification: .discouraged, info: ["rk": true, "uv": false], rk: true, uv: true,
            assertionUV: .some(nil)),
        .init(residentKey: .discouraged, userVerification: .discouraged, info: ["uv": true], rk: nil, uv: nil),
        // rk "preferred" needs an authenticator that can verify users (Chromium).
        .init(
            residentKey: .preferred, userVerification: .discouraged, info: ["rk": true, "uv": false], rk: nil, uv: nil),
        .init(
            residentKey: .preferred, userVerification: .discouraged, info: ["rk": true, "uv": true], rk: true, uv: true,
            assertionUV: .some(nil)),
    ]

    @Test(arguments: optionCases)
    func optionRules(_ testCase: OptionCase) throws {
        let info = testCase.info.map {
            AuthenticatorGetInfoResponse(versions: ["FIDO_2_0"], aaguid: .init(repeating: 0, count: 16), options: $0)
        }
        let create = try PublicKeyCredentialCreationOptionsJSON.quick(
            rpID: "example.com",
            userName: "a",
            userID: [1],
            challenge: [2],
            residentKey: testCase.residentKey,
            userVerification: testCase.userVerification
        )
        let makeCredential = try RegistrationCeremony(options: create, origin: WebOrigin(Self.origin))
            .makeCredentialRequest(authenticatorInfo: info)
        #expect(makeCredential.options?.residentKey == testCase.rk)
        #expect(makeCredential.options?.userVerification == testCase.uv)
        #expect(makeCredential.options?.userPresence == nil)
        if testCase.rk == nil, testCase.uv == nil { #expect(makeCredential.options == nil) }

        let get = PublicKeyCredentialRequestOptionsJSON.quick(
            rpID: "example.com",
            challenge: [2],
            allowCredentialIDs: [[7]],
            userVerification: testCase.userVerification
        )
        let getAssertion = try AuthenticationCeremony(options: get, origin: WebOrigin(Self.origin))
            .getAssertionRequest(authenticatorInfo: info)
        #expect(getAssertion.options?.userVerification == testCase.assertionUV ?? testCase.uv)
        #expect(getAssertion.options?.userPresence == nil)
        #expect(getAssertion.options?.residentKey == nil)

        // A discoverable sign-in always requires UV (Chromium's SetUVForDiscoverableRequests).
        let discoverable = PublicKeyCredentialRequestOptionsJSON.quick(
            rpID: "example.com", challenge: [2], userVerification: testCase.userVerification)
        let discoverableAssertion = try AuthenticationCeremony(options: discoverable, origin: WebOrigin(Self.origin))
            .getAssertionRequest(authenticatorInfo: info)
        #expect(discoverableAssertion.allowList == nil)
        #expect(discoverableAssertion.options?.userVerification == true)
    }

    @Test func originAndRPIDAreCheckedFirst() throws {
        let create = try PublicKeyCredentialCreationOptionsJSON.quick(
            rpID: "other.com",
            userName: "a",
            userID: [1],
            challenge: [2]
        )
        #expect(throws: OriginError.rpIDNotAllowedForOrigin(rpID: "other.com", host: "login.example.com")) {
            try RegistrationCeremony(options: create, origin: WebOrigin(Self.origin))
        }
        let get = PublicKeyCredentialRequestOptionsJSON(challenge: [1])
        let ceremony = try AuthenticationCeremony(options: get, origin: WebOrigin(Self.origin))
        #expect(ceremony.rpID == "login.example.com")
        #expect(ceremony.getAssertionRequest().rpID == "login.example.com")
    }
}
