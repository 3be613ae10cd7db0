import Foundation
import HybridCTAP
import HybridCore
import TestSupport
import Testing

@_spi(Fuzzing) @testable import HybridClient

/// WebAuthn extensions against a scripted phone in Python (Tests/Interop/soft_authenticator.py): it
/// reads our CTAP request, holds a per-credential PRF secret and answers with `cryptography`'s
/// HMAC-SHA256, zlib and cbor2, where phones put their outputs. Expected PRF results come from the
/// Python side (`prf-expected`), salts from `hashlib`; py_webauthn verifies every ceremony.
@Suite(.serialized) struct ExtensionInteropTests {
    typealias Workspace = CeremonyResponseTests.Workspace
    static let origin = "https://login.example.com"
    static let challenge: [UInt8] = Array("a challenge of 32 bytes, exactly".utf8)

    static func info(_ extensions: [String]) -> AuthenticatorGetInfoResponse {
        AuthenticatorGetInfoResponse(
            versions: ["FIDO_2_0", "FIDO_2_1"], extensions: extensions, aaguid: [UInt8](repeating: 0, count: 16),
            options: ["rk": true, "uv": true])
    }

    static func phone(_ arguments: [String]) async throws -> [String: String] {
        try await CeremonyResponseTests.authenticator(arguments)
    }

    /// HMAC-SHA256(secret, SHA-256("WebAuthn PRF" ‖ 0 ‖ input)), computed by the Python phone.
    static func expectedPRF(_ workspace: Workspace, _ input: [UInt8]) async throws -> String {
        let output = try await phone([
            "prf-expected", "--key-file", workspace.path("key.json"), "--input", Hex.encode(input),
        ])
        return Base64URL.encode(try Hex.decode(try #require(output["result"])))
    }

    static func creationOptions(extensions: String, residentKey: String = "required", uv: String = "preferred")
        throws -> PublicKeyCredentialCreationOptionsJSON
    {
        let json = """
            {"rp": {"id": "example.com", "name": "Example"},
             "user": {"id": "YWxpY2U", "name": "alice", "displayName": "Alice"},
             "challenge": "\(Base64URL.encode(challenge))",
             "pubKeyCredParams": [{"type": "public-key", "alg": -7}],
             "authenticatorSelection": {"residentKey": "\(residentKey)", "userVerification": "\(uv)"},
             "extensions": \(extensions)}
            """
        return try PublicKeyCredentialCreationOptionsJSON(json: Data(json.utf8))
    }

    static func requestOptions(extensions: String, allow: [[UInt8]]) throws -> PublicKeyCredentialRequestOptionsJSON {
        let list = allow.map { #"{"type": "public-key", "id": "\#(Base64URL.encode($0))"}"# }.joined(separator: ",")
        let json = """
            {"challenge": "\(Base64URL.encode(challenge))", "rpId": "example.com", "allowCredentials": [\(list)],
             "userVerification": "preferred", "extensions": \(extensions)}
            """
        return try PublicKeyCredentialRequestOptionsJSON(json: Data(json.utf8))
    }

    /// The Python phone's answer to our CTAP `request` (its extension inputs included).
    static func answer(
        _ command: String, _ workspace: Workspace, clientDataHash: [UInt8], request: [UInt8], supports: [String]
    ) async throws -> [UInt8] {
        let output = try await phone([
            command, "--rp-id", "example.com", "--client-data-hash", Hex.encode(clientDataHash),
            "--key-file", workspace.path("key.json"), "--uv", "--request", Hex.encode(request),
            "--supports", supports.joined(separator: ","),
        ])
        return try Hex.decode(try #require(output["response"]))
    }

    /// Runs `request` against the Python phone and maps its reply through the runner's mapping, with
    /// the getInfo the request was built with; returns the response and the CTAP request sent.
    static func exchange(
        _ workspace: Workspace, _ request: HybridClientRequest, supports: [String]
    ) async throws -> (HybridClientResponse, [UInt8]) {
        let info = info(supports)
        let bytes = try request.ctapRequest(authenticatorInfo: info)
        let (command, clientData) =
            switch request {
            case .registration(let ceremony): ("make-credential", ceremony.clientData)
            case .authentication(let ceremony): ("get-assertion", ceremony.clientData)
            }
        let answer = try await answer(
            command, workspace, clientDataHash: clientData.hash, request: bytes, supports: supports)
        return (try HybridClientRunner.mapReply(answer, to: request, authenticatorInfo: info), bytes)
    }

    /// Registers through the Python phone; py_webauthn verifies the result.
    static func register(
        _ workspace: Workspace, _ options: PublicKeyCredentialCreationOptionsJSON, supports: [String]
    ) async throws -> (RegistrationResponseJSON, MakeCredentialRequest, [UInt8]) {
        let ceremony = try RegistrationCeremony(options: options, origin: WebOrigin(origin))
        let (reply, bytes) = try await exchange(workspace, .registration(ceremony), supports: supports)
        guard case .registration(let response) = reply else { throw TestFailure("not a registration") }
        let verified = try await CeremonyResponseTests.verify([
            "register", "--response", try workspace.write(response.json, "registration.json"), "--origin", origin,
            "--challenge", Base64URL.encode(challenge), "--rp-id", "example.com", "--require-uv",
            "--credential-out", workspace.path("credential.json"),
        ])
        #expect(verified.status == 0, "py_webauthn: \(verified.errors)")
        let stored = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: workspace.path("key.json"))))
        let credentialID = try Hex.decode(try #require((stored as? [String: Any])?["credentialId"] as? String))
        #expect(response.id == Base64URL.encode(credentialID))
        let request = try ceremony.makeCredentialRequest(authenticatorInfo: info(supports))
        #expect(request.encoded == bytes)
        return (response, request, credentialID)
    }

    /// Signs in through the Python phone; py_webauthn verifies the result.
    static func authenticate(
        _ workspace: Workspace, _ options: PublicKeyCredentialRequestOptionsJSON, supports: [String]
    ) async throws -> (AuthenticationResponseJSON, GetAssertionRequest) {
        let ceremony = try AuthenticationCeremony(options: options, origin: WebOrigin(origin))
        let (reply, bytes) = try await exchange(workspace, .authentication(ceremony), supports: supports)
        guard case .authentication(let response) = reply else { throw TestFailure("not an authentication") }
        let verified = try await CeremonyResponseTests.verify([
            "authenticate", "--response", try workspace.write(response.json, "authentication.json"),
            "--credential", workspace.path("credential.json"), "--rp-id", "example.com", "--origin", origin,
            "--challenge", Base64URL.encode(challenge), "--require-uv",
        ])
        #expect(verified.status == 0, "py_webauthn: \(verified.errors)")
        let request = ceremony.getAssertionRequest(authenticatorInfo: info(supports))
        #expect(request.encoded == bytes)
        return (response, request)
    }

    @Test func prfSaltMatchesHashlib() async throws {
        try #require(await ExternalTool.hasPyWebAuthn, "pip install webauthn")
        let inputs: [[UInt8]] = [
            [], [0], Array("hello".utf8), [UInt8](0..<32), [UInt8](0..<33), [UInt8](repeating: 0xA5, count: 200),
        ]
        for input in inputs {
            let output = try await Self.phone(["prf-salt", "--input", Hex.encode(input)])
            #expect(try PRFValues.salt(input) == Hex.decode(#require(output["salt"])), "input \(Hex.encode(input))")
        }
        #expect(PRFValues(first: [1], second: [2]).salts.second == PRFValues.salt([2]))
    }

    @Test func prfAndCredPropsMatchThePythonPhone() async throws {
        try #require(await ExternalTool.hasPyWebAuthn, "pip install webauthn")
        let workspace = try Workspace()
        let a = Array("create-time input".utf8)
        let b = Array("first input".utf8)
        let c = Array("second input".utf8)
        let d = Array("by-credential input".utf8)
        let options = try Self.creationOptions(
            extensions: #"{"prf": {"eval": {"first": "\#(Base64URL.encode(a))"}}, "credProps": true}"#)
        let (registration, request, credentialID) = try await Self.register(workspace, options, supports: ["prf"])
        #expect(request.extensions?[textKey: "prf"]?[textKey: "eval"]?[textKey: "first"] == .bytes(PRFValues.salt(a)))
        #expect(request.options?.userVerification == true)
        let created = registration.clientExtensionResults
        #expect(created.prf?.enabled == true)
        #expect(try await created.prf?.results?.first == Self.expectedPRF(workspace, a))
        #expect(created.credProps?.rk == true)

        // eval with two inputs.
        let both = try Self.requestOptions(
            extensions:
                #"{"prf": {"eval": {"first": "\#(Base64URL.encode(b))", "second": "\#(Base64URL.encode(c))"}}}"#,
            allow: [credentialID])
        let (signedIn, _) = try await Self.authenticate(workspace, both, supports: ["prf"])
        #expect(try await signedIn.clientExtensionResults.prf?.results?.first == Self.expectedPRF(workspace, b))
        #expect(try await signedIn.clientExtensionResults.prf?.results?.second == Self.expectedPRF(workspace, c))
        #expect(signedIn.clientExtensionResults.prf?.enabled == nil)

        // evalByCredential wins over eval for its credential.
        let byCredential = try Self.requestOptions(
            extensions: #"""
                {"prf": {"eval": {"first": "\#(Base64URL.encode(b))"},
                         "evalByCredential": {"\#(Base64URL.encode(credentialID))": {"first": "\#(Base64URL.encode(d))"}}}}
                """#,
            allow: [credentialID, [9, 9]])
        let (chosen, assertionRequest) = try await Self.authenticate(workspace, byCredential, supports: ["prf"])
        #expect(
            assertionRequest.extensions?[textKey: "prf"]?[textKey: "evalByCredential"]?[.bytes(credentialID)]?[
                textKey: "first"] == .bytes(PRFValues.salt(d)))
        #expect(try await chosen.clientExtensionResults.prf?.results?.first == Self.expectedPRF(workspace, d))
        #expect(chosen.clientExtensionResults.prf?.results?.second == nil)
        #expect(try await Self.expectedPRF(workspace, d) != Self.expectedPRF(workspace, b))
        let json = String(decoding: chosen.json, as: UTF8.self)
        #expect(json.contains(#""clientExtensionResults":{"prf":{"results":{"first":""#))
    }

    /// Chromium's `ConvertCTAPResponse` rule for credProps.rk, on the phones of protocol.md §8.3.
    @Test func credPropsResidentKeyFollowsChromium() {
        let ios16 = AuthenticatorGetInfoResponse(
            versions: ["FIDO_2_0"], aaguid: [UInt8](repeating: 0, count: 16), options: ["rk": true, "uv": true])
        let noResidentKeys = AuthenticatorGetInfoResponse(
            versions: ["FIDO_2_0"], aaguid: [UInt8](repeating: 0, count: 16), options: ["uv": true])
        #expect(RegistrationExtensionPlan.credPropsResidentKey(residentKey: true, authenticatorInfo: ios16) == true)
        #expect(RegistrationExtensionPlan.credPropsResidentKey(residentKey: false, authenticatorInfo: ios16) == nil)
        #expect(
            RegistrationExtensionPlan.credPropsResidentKey(residentKey: false, authenticatorInfo: noResidentKeys)
                == false)
        #expect(
            RegistrationExtensionPlan.credPropsResidentKey(residentKey: false, authenticatorInfo: Self.info([]))
                == false)
        #expect(RegistrationExtensionPlan.credPropsResidentKey(residentKey: false, authenticatorInfo: nil) == nil)
    }

    /// A phone listing hmac-secret (with a PIN/UV protocol) but not prf: `create()` sends
    /// `hmac-secret: true` without the eval input and reports `enabled` from authenticator data.
    @Test func prfThroughHmacSecretAtCreation() async throws {
        try #require(await ExternalTool.hasPyWebAuthn, "pip install webauthn")
        let workspace = try Workspace()
        var info = Self.info(["hmac-secret"])
        info.pinUvAuthProtocols = [2]
        let ceremony = try RegistrationCeremony(
            options: try Self.creationOptions(
                extensions: #"{"prf": {"eval": {"first": "AQ"}}}"#, residentKey: "discouraged", uv: "discouraged"),
            origin: WebOrigin(Self.origin))
        let request = try ceremony.makeCredentialRequest(authenticatorInfo: info)
        #expect(request.extensions == ["hmac-secret": true])
        #expect(request.options?.userVerification == true)  // discouraged raised to preferred, and uv is there
        #expect(try ceremony.makeCredentialRequest(authenticatorInfo: Self.info(["hmac-secret"])).extensions == nil)
        let answer = try await Self.phone([
            "make-credential", "--rp-id", "example.com", "--client-data-hash", Hex.encode(request.clientDataHash),
            "--key-file", workspace.path("key.json"), "--uv", "--extension", "hmac-secret",
        ])
        let response = try MakeCredentialResponse(responseBytes: try Hex.decode(try #require(answer["response"])))
        #expect(
            try ceremony.response(to: response, authenticatorInfo: info).clientExtensionResults.prf
                == .init(enabled: true))
        #expect(throws: ResponseMappingError.unexpectedExtension("hmac-secret")) {
            try ceremony.response(to: response, authenticatorInfo: Self.info(["prf"]))
        }
    }

    @Test func prfOnAPhoneWithoutIt() async throws {
        try #require(await ExternalTool.hasPyWebAuthn, "pip install webauthn")
        let workspace = try Workspace()
        let options = try Self.creationOptions(
            extensions: #"{"prf": {"eval": {"first": "AQ"}}, "credProps": true}"#, residentKey: "discouraged")
        let (registration, request, credentialID) = try await Self.register(workspace, options, supports: [])
        #expect(request.extensions == nil)
        #expect(registration.clientExtensionResults.prf == .init(enabled: false))
        #expect(registration.clientExtensionResults.credProps?.rk == false)
        let (signedIn, assertionRequest) = try await Self.authenticate(
            workspace,
            try Self.requestOptions(extensions: #"{"prf": {"eval": {"first": "AQ"}}}"#, allow: [credentialID]),
            supports: [])
        #expect(assertionRequest.extensions == nil)
        #expect(String(decoding: signedIn.json, as: UTF8.self).contains(#""clientExtensionResults":{"prf":{}}"#))
    }

    @Test func credProtectIsSentOnlyWhereSupportedAndEnforcementRefusesOtherPhones() async throws {
        try #require(await ExternalTool.hasPyWebAuthn, "pip install webauthn")
        let workspace = try Workspace()
        let enforced = try Self.creationOptions(
            extensions:
                #"{"credentialProtectionPolicy": "userVerificationOptionalWithCredentialIDList", "enforceCredentialProtectionPolicy": true}"#
        )
        let ceremony = try RegistrationCeremony(options: enforced, origin: WebOrigin(Self.origin))
        #expect(throws: ClientExtensionError.credentialProtectionUnsupported) {
            try ceremony.makeCredentialRequest(authenticatorInfo: Self.info(["prf"]))
        }
        #expect(throws: HybridClientError.extensionUnsupported(.credentialProtectionUnsupported)) {
            try HybridClientRequest.registration(ceremony).ctapRequest(authenticatorInfo: Self.info([]))
        }
        let (_, request, _) = try await Self.register(workspace, enforced, supports: ["credProtect"])
        #expect(request.extensions?[textKey: "credProtect"] == .int(2))
        // Unspecified policy: Chromium's default, 3 for residentKey required with uv preferred.
        let defaulted = try RegistrationCeremony(
            options: try Self.creationOptions(extensions: "{}"), origin: WebOrigin(Self.origin))
        #expect(
            try defaulted.makeCredentialRequest(authenticatorInfo: Self.info(["credProtect"])).extensions == [
                "credProtect": 3
            ])
        #expect(try defaulted.makeCredentialRequest(authenticatorInfo: Self.info([])).extensions == nil)
        // An output below the requested level is refused.
        let answer = try await Self.phone([
            "make-credential", "--rp-id", "example.com", "--client-data-hash", Hex.encode(request.clientDataHash),
            "--key-file", workspace.path("other.json"), "--uv", "--extension", "credProtect",
        ])
        let lower = try MakeCredentialResponse(responseBytes: try Hex.decode(try #require(answer["response"])))
        #expect(throws: ResponseMappingError.unexpectedExtension("credProtect")) {
            try ceremony.response(to: lower, authenticatorInfo: Self.info(["credProtect"]))
        }
    }

    @Test func largeBlobSupportWriteAndRead() async throws {
        try #require(await ExternalTool.hasPyWebAuthn, "pip install webauthn")
        let workspace = try Workspace()
        let options = try Self.creationOptions(extensions: #"{"largeBlob": {"support": "required"}}"#)
        #expect(throws: ClientExtensionError.largeBlobUnsupported) {
            try RegistrationCeremony(options: options, origin: WebOrigin(Self.origin))
                .makeCredentialRequest(authenticatorInfo: Self.info(["prf"]))
        }
        let (registration, request, credentialID) = try await Self.register(workspace, options, supports: ["largeBlob"])
        #expect(request.extensions == ["largeBlob": ["support": "required"]])
        #expect(registration.clientExtensionResults.largeBlob?.supported == true)

        let blob = Array(String(repeating: "a large blob, compressed on the way. ", count: 20).utf8)
        let write = try Self.requestOptions(
            extensions: #"{"largeBlob": {"write": "\#(Base64URL.encode(blob))"}}"#, allow: [credentialID])
        let (written, _) = try await Self.authenticate(workspace, write, supports: ["largeBlob"])
        #expect(written.clientExtensionResults.largeBlob == .init(written: true))
        let read = try Self.requestOptions(extensions: #"{"largeBlob": {"read": true}}"#, allow: [credentialID])
        let (readBack, _) = try await Self.authenticate(workspace, read, supports: ["largeBlob"])
        #expect(readBack.clientExtensionResults.largeBlob == .init(blob: blob))
        // A phone without largeBlob: nothing is sent and nothing is read or written.
        let (notWritten, plain) = try await Self.authenticate(workspace, write, supports: [])
        #expect(plain.extensions == nil)
        #expect(notWritten.clientExtensionResults.largeBlob == .init(written: false))
    }

    @Test func outputsNobodyAskedForAreRefused() async throws {
        try #require(await ExternalTool.hasPyWebAuthn, "pip install webauthn")
        let workspace = try Workspace()
        let options = try Self.creationOptions(extensions: "{}")
        let ceremony = try RegistrationCeremony(options: options, origin: WebOrigin(Self.origin))
        let request = try ceremony.makeCredentialRequest(authenticatorInfo: Self.info(["prf"]))
        let answer = try await Self.phone([
            "make-credential", "--rp-id", "example.com", "--client-data-hash", Hex.encode(request.clientDataHash),
            "--key-file", workspace.path("key.json"), "--uv",
        ])
        var response = try MakeCredentialResponse(responseBytes: try Hex.decode(try #require(answer["response"])))
        #expect(
            try ceremony.response(to: response, authenticatorInfo: Self.info(["prf"])).clientExtensionResults == .init()
        )
        response.unsignedExtensionOutputs = ["prf": ["enabled": true]]
        #expect(throws: ResponseMappingError.unexpectedExtension("prf")) {
            try ceremony.response(to: response, authenticatorInfo: Self.info(["prf"]))
        }
        response.unsignedExtensionOutputs = ["largeBlob": ["supported": true]]
        #expect(throws: ResponseMappingError.unexpectedExtension("largeBlob")) {
            try ceremony.response(to: response, authenticatorInfo: Self.info(["largeBlob"]))
        }
    }

    @Test func malformedAssertionOutputsAreRefusedOrDropped() async throws {
        try #require(await ExternalTool.hasPyWebAuthn, "pip install webauthn")
        let workspace = try Workspace()
        let supports = ["prf", "largeBlob"]
        let (_, _, credentialID) = try await Self.register(
            workspace, try Self.creationOptions(extensions: #"{"largeBlob": {"support": "required"}}"#),
            supports: supports)
        let options = try Self.requestOptions(
            extensions: #"{"prf": {"eval": {"first": "AQ"}}, "largeBlob": {"read": true}}"#, allow: [credentialID])
        let ceremony = try AuthenticationCeremony(options: options, origin: WebOrigin(Self.origin))
        let info = Self.info(supports)
        let request = ceremony.getAssertionRequest(authenticatorInfo: info)
        var assertion = try GetAssertionResponse(
            responseBytes: try await Self.answer(
                "get-assertion", workspace, clientDataHash: request.clientDataHash, request: request.encoded,
                supports: supports))
        #expect(
            try ceremony.response(to: assertion, authenticatorInfo: info).clientExtensionResults.prf?.results != nil)
        func outcome(_ outputs: CBORValue) -> Result<ClientExtensionResults, ResponseMappingError> {
            assertion.unsignedExtensionOutputs = outputs
            do throws(ResponseMappingError) {
                return .success(try ceremony.response(to: assertion, authenticatorInfo: info).clientExtensionResults)
            } catch {
                return .failure(error)
            }
        }
        let short: CBORValue = ["prf": ["results": ["first": .bytes([UInt8](repeating: 1, count: 31))]]]
        #expect(outcome(short) == .failure(.unexpectedExtension("prf")))
        #expect(
            outcome(["prf": ["results": ["first": .bytes([UInt8](repeating: 1, count: 32)), "second": 7]]])
                == .failure(.unexpectedExtension("prf")))
        #expect(outcome(["prf": 1]) == .failure(.unexpectedExtension("prf")))
        #expect(outcome(["largeBlob": ["written": true]]) == .failure(.unexpectedExtension("largeBlob")))
        #expect(
            outcome(["largeBlob": ["blob": .bytes([1]), "originalSize": -1]])
                == .failure(.unexpectedExtension("largeBlob")))
        #expect(outcome(["credBlob": .bytes([1])]) == .failure(.unexpectedExtension("credBlob")))
        #expect(outcome([.int(1): true]) == .failure(.unexpectedExtension("a key that is not text")))
        // A blob that does not inflate to its announced size is dropped, as Chromium drops it.
        let corrupt = outcome(["largeBlob": ["blob": .bytes([0xFF, 0x00, 0x13]), "originalSize": 5]])
        #expect(corrupt == .success(ClientExtensionResults(prf: .init(), largeBlob: .init())))
    }

    @Test func extensionInputsBrowsersRefuse() async throws {
        let credential = Base64URL.encode([1, 2, 3])
        #expect(throws: WebAuthnOptionsError.unsupportedExtensionInput("prf.evalByCredential is only allowed in get()"))
        {
            try Self.creationOptions(extensions: #"{"prf": {"evalByCredential": {}}}"#)
        }
        #expect(throws: WebAuthnOptionsError.self) {
            try Self.creationOptions(extensions: #"{"largeBlob": {"read": true}}"#)
        }
        #expect(throws: WebAuthnOptionsError.self) {
            try Self.creationOptions(extensions: #"{"enforceCredentialProtectionPolicy": true}"#)
        }
        #expect(throws: WebAuthnOptionsError.self) {
            try Self.creationOptions(extensions: #"{"credentialProtectionPolicy": "userVerificationRequired"}"#)
        }
        #expect(
            throws: WebAuthnOptionsError.invalidExtensionInput(
                "prf.evalByCredential names a credential not in allowCredentials")
        ) {
            try Self.requestOptions(
                extensions: #"{"prf": {"evalByCredential": {"\#(credential)": {"first": "AA"}}}}"#, allow: [[9]])
        }
        #expect(throws: WebAuthnOptionsError.unsupportedExtensionInput("prf.evalByCredential needs allowCredentials")) {
            try Self.requestOptions(
                extensions: #"{"prf": {"evalByCredential": {"\#(credential)": {"first": "AA"}}}}"#, allow: [])
        }
        #expect(throws: WebAuthnOptionsError.self) {
            try Self.requestOptions(extensions: #"{"largeBlob": {"write": "AA"}}"#, allow: [[1], [2]])
        }
        #expect(throws: WebAuthnOptionsError.self) {
            try Self.requestOptions(extensions: #"{"largeBlob": {"read": true, "write": "AA"}}"#, allow: [[1]])
        }
        let ignored = try Self.requestOptions(extensions: #"{"somethingNew": 1, "prf": {}}"#, allow: [])
        #expect(ignored.ignoredExtensions == ["somethingNew"])
        #expect(ignored.extensions.prf == PRFInputs())
    }
}
