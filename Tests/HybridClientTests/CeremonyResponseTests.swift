import Foundation
import HybridCTAP
import HybridCore
import Testing

@_spi(Fuzzing) @testable import HybridClient

/// Phone answers → RegistrationResponseJSON / AuthenticationResponseJSON, checked by py_webauthn acting
/// as the relying party. The answers come from Tests/Interop/soft_authenticator.py (Python
/// `cryptography` + `cbor2`), so neither side of the check is our own code.
@Suite(.serialized) struct CeremonyResponseTests {
    static let origin = "https://login.example.com"
    static let challenge: [UInt8] = Array("a challenge of 32 bytes, exactly".utf8)

    final class Workspace: Sendable {
        let directory: URL
        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "hybrid-client-\(UUID().uuidString)"
            )
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: directory) }
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        func write(_ data: Data, _ name: String) throws -> String {
            try data.write(to: URL(fileURLWithPath: path(name)))
            return path(name)
        }
    }

    /// Runs soft_authenticator.py and returns its JSON output.
    static func authenticator(_ arguments: [String]) async throws -> [String: String] {
        let script = ExternalTool.interopDirectory.appendingPathComponent("soft_authenticator.py").path
        let output = try await ExternalTool.run("python3", [script] + arguments)
        return try #require(try JSONSerialization.jsonObject(with: Data(output)) as? [String: String])
    }

    /// Runs verify_webauthn.py; returns its exit status and stdout.
    static func verify(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let script = ExternalTool.interopDirectory.appendingPathComponent("verify_webauthn.py").path
        let result = try await ExternalTool.runReportingStatus("python3", [script] + arguments)
        return (result.status, String(decoding: result.stdout, as: UTF8.self), result.stderr)
    }

    func registration(
        _ workspace: Workspace,
        residentKey: ResidentKeyRequirement = .required,
        fmt: String = "none",
        attestation: AttestationConveyancePreference = .none
    ) async throws -> (RegistrationCeremony, RegistrationResponseJSON, [String: String]) {
        var options = try PublicKeyCredentialCreationOptionsJSON.quick(
            rpID: "example.com",
            userName: "alice",
            userID: Array("alice-id".utf8),
            challenge: Self.challenge,
            residentKey: residentKey
        )
        options.attestation = attestation
        let ceremony = try RegistrationCeremony(options: options, origin: WebOrigin(Self.origin))
        let request = try ceremony.makeCredentialRequest()
        let answer = try await Self.authenticator([
            "make-credential", "--rp-id", request.rp.id, "--client-data-hash", Hex.encode(request.clientDataHash),
            "--key-file", workspace.path("key.json"), "--fmt", fmt, "--uv",
        ])
        let response = try MakeCredentialResponse(responseBytes: try Hex.decode(try #require(answer["response"])))
        return (ceremony, try ceremony.response(to: response), answer)
    }

    @Test(arguments: ["none", "packed-self"])
    func registrationVerifiesWithPyWebAuthn(_ fmt: String) async throws {
        try #require(await ExternalTool.hasPyWebAuthn, "pip install webauthn")
        let workspace = try Workspace()
        let (_, response, answer) = try await registration(workspace, fmt: fmt, attestation: .direct)
        let responseFile = try workspace.write(response.json, "registration.json")
        let common = ["--challenge=" + Base64URL.encode(Self.challenge), "--rp-id", "example.com"]
        let good = try await Self.verify(
            ["register", "--response", responseFile, "--origin", Self.origin, "--require-uv"] + common
                + ["--credential-out", workspace.path("credential.json")]
        )
        #expect(good.status == 0, "\(good.errors)")
        #expect(good.output.contains(#""fmt": "\#(fmt == "none" ? "none" : "packed")""#))
        #expect(try response.id == Base64URL.encode(Hex.decode(#require(answer["credentialId"]))))

        // The relying party must refuse a changed challenge, origin or RP ID.
        let wrongChallenge = try await Self.verify(
            [
                "register", "--response", responseFile, "--origin", Self.origin, "--challenge=AAAA", "--rp-id",
                "example.com",
            ]
        )
        #expect(wrongChallenge.status == 1)
        let wrongOrigin = try await Self.verify(
            ["register", "--response", responseFile, "--origin", "https://example.com"] + common
        )
        #expect(wrongOrigin.status == 1)
        let wrongRP = try await Self.verify(
            [
                "register", "--response", responseFile, "--origin", Self.origin,
                "--challenge=" + Base64URL.encode(Self.challenge),
                "--rp-id", "login.example.com",
            ]
        )
        #expect(wrongRP.status == 1)
    }

    @Test func registrationJSONShape() async throws {
        try #require(await ExternalTool.hasPyWebAuthn, "pip install webauthn")
        let workspace = try Workspace()
        let (ceremony, response, answer) = try await registration(workspace)
        let object = try #require(try JSONSerialization.jsonObject(with: response.json) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "id", "rawId", "type", "response", "authenticatorAttachment", "clientExtensionResults",
            ]
        )
        #expect(object["type"] as? String == "public-key")
        #expect(object["authenticatorAttachment"] as? String == "cross-platform")
        #expect((object["clientExtensionResults"] as? [String: Any])?.isEmpty == true)
        #expect(object["id"] as? String == object["rawId"] as? String)
        let inner = try #require(object["response"] as? [String: Any])
        #expect(
            Set(inner.keys) == [
                "clientDataJSON", "attestationObject", "authenticatorData", "transports", "publicKey",
                "publicKeyAlgorithm",
            ]
        )
        #expect(inner["transports"] as? [String] == ["hybrid"])
        #expect(inner["publicKeyAlgorithm"] as? Int == -7)
        // The SPKI DER equals what Python's cryptography produces for the authenticator's key.
        #expect(try Base64URL.decode(#require(inner["publicKey"] as? String)) == Hex.decode(#require(answer["spki"])))
        #expect(Base64URL.decode(try #require(inner["clientDataJSON"] as? String)) == ceremony.clientData.json)
        // Stable output: sorted keys, no escaped slashes, no white space.
        let text = String(decoding: response.json, as: UTF8.self)
        #expect(text.hasPrefix(#"{"authenticatorAttachment":"cross-platform","clientExtensionResults":{},"id":""#))
        #expect(!text.contains(" ") && !text.contains("\\/"))
    }

    @Test func noneAttestationReplacesPackedWithX5C() async throws {
        // Self attestation (packed, no x5c, zero AAGUID) survives attestation "none"; a statement with
        // an x5c is replaced by fmt "none" and an empty statement (WebAuthn L3 §5.1.3).
        try #require(await ExternalTool.hasPyWebAuthn, "pip install webauthn")
        let workspace = try Workspace()
        let (ceremony, _, answer) = try await registration(workspace, fmt: "packed-self")
        var response = try MakeCredentialResponse(responseBytes: try Hex.decode(try #require(answer["response"])))
        let selfAttested = try AttestationObject(
            bytes: try #require(Base64URL.decode(try ceremony.response(to: response).response.attestationObject))
        )
        #expect(selfAttested.format == "packed")
        response.attestationStatement = ["alg": -7, "sig": .bytes([1]), "x5c": [.bytes([2])]]
        let replaced = try AttestationObject(
            bytes: try #require(Base64URL.decode(try ceremony.response(to: response).response.attestationObject))
        )
        #expect(replaced.format == "none")
        #expect(replaced.attestationStatement.mapEntries?.isEmpty == true)
        #expect(replaced.authenticatorData == response.authenticatorData)
    }

    @Test func authenticationVerifiesWithPyWebAuthn() async throws {
        try #require(await ExternalTool.hasPyWebAuthn, "pip install webauthn")
        let workspace = try Workspace()
        let (_, registered, answer) = try await registration(workspace)
        let credentialFile = workspace.path("credential.json")
        let common = ["--challenge=" + Base64URL.encode(Self.challenge), "--rp-id", "example.com"]
        let stored = try await Self.verify(
            [
                "register", "--response", try workspace.write(registered.json, "registration.json"), "--origin",
                Self.origin,
            ]
                + common + ["--credential-out", credentialFile]
        )
        try #require(stored.status == 0, "\(stored.errors)")

        let credentialID = try Hex.decode(#require(answer["credentialId"]))
        for allowList in [[credentialID], []] {
            let getChallenge: [UInt8] = Array(repeating: 0x5A, count: 32)
            let options = PublicKeyCredentialRequestOptionsJSON.quick(
                rpID: "example.com",
                challenge: getChallenge,
                allowCredentialIDs: allowList
            )
            let ceremony = try AuthenticationCeremony(options: options, origin: WebOrigin(Self.origin))
            let request = ceremony.getAssertionRequest()
            let assertion = try await Self.authenticator([
                "get-assertion", "--rp-id", request.rpID, "--client-data-hash", Hex.encode(request.clientDataHash),
                "--key-file", workspace.path("key.json"), "--uv",
            ])
            let parsed = try GetAssertionResponse(responseBytes: try Hex.decode(try #require(assertion["response"])))
            let response = try ceremony.response(to: parsed)
            #expect(try response.response.userHandle == Base64URL.encode(Hex.decode(#require(assertion["userId"]))))
            let responseFile = try workspace.write(response.json, "authentication.json")
            let arguments = [
                "authenticate", "--response", responseFile, "--credential", credentialFile, "--rp-id", "example.com",
            ]
            let good = try await Self.verify(
                arguments + ["--origin", Self.origin, "--challenge=" + Base64URL.encode(getChallenge), "--require-uv"]
            )
            #expect(good.status == 0, "\(good.errors)")
            let wrongChallenge = try await Self.verify(
                arguments + ["--origin", Self.origin, "--challenge=" + Base64URL.encode(Self.challenge)]
            )
            #expect(wrongChallenge.status == 1)
            let wrongOrigin = try await Self.verify(
                arguments + ["--origin", "https://evil.example.com", "--challenge=" + Base64URL.encode(getChallenge)]
            )
            #expect(wrongOrigin.status == 1)

            let object = try #require(try JSONSerialization.jsonObject(with: response.json) as? [String: Any])
            #expect(
                Set(object.keys) == [
                    "id", "rawId", "type", "response", "authenticatorAttachment", "clientExtensionResults",
                ]
            )
            let inner = try #require(object["response"] as? [String: Any])
            #expect(Set(inner.keys) == ["clientDataJSON", "authenticatorData", "signature", "userHandle"])
        }
    }

    @Test func answersABrowserWouldRefuse() async throws {
        try #require(await ExternalTool.hasPyWebAuthn, "pip install webauthn")
        let workspace = try Workspace()
        let (registrationCeremony, _, answer) = try await registration(workspace)
        let hash = Hex.encode(registrationCeremony.clientData.hash)
        let keyFile = workspace.path("key.json")

        let wrongRP = try await Self.authenticator([
            "make-credential", "--rp-id", "example.com", "--client-data-hash", hash,
            "--key-file", workspace.path("other.json"), "--wrong-rp",
        ])
        #expect(throws: ResponseMappingError.rpIDHashMismatch) {
            try registrationCeremony.response(
                to: MakeCredentialResponse(responseBytes: try Hex.decode(wrongRP["response"] ?? ""))
            )
        }

        let credentialID = try Hex.decode(#require(answer["credentialId"]))
        func assertion(
            _ allow: [[UInt8]],
            _ flags: [String]
        ) async throws -> Result<AuthenticationResponseJSON, ResponseMappingError> {
            let ceremony = try AuthenticationCeremony(
                options: .quick(rpID: "example.com", challenge: [1, 2, 3], allowCredentialIDs: allow),
                origin: WebOrigin(Self.origin)
            )
            let output = try await Self.authenticator(
                [
                    "get-assertion", "--rp-id", "example.com", "--client-data-hash",
                    Hex.encode(ceremony.clientData.hash),
                    "--key-file", keyFile,
                ] + flags
            )
            let parsed = try GetAssertionResponse(responseBytes: try Hex.decode(try #require(output["response"])))
            do throws(ResponseMappingError) {
                return .success(try ceremony.response(to: parsed))
            } catch {
                return .failure(error)
            }
        }
        #expect(try await assertion([credentialID], ["--omit-credential"]).get().id == Base64URL.encode(credentialID))
        await #expect(throws: ResponseMappingError.missingCredentialID) {
            try await assertion([], ["--omit-credential"]).get()
        }
        await #expect(throws: ResponseMappingError.missingCredentialID) {
            try await assertion([credentialID, [9]], ["--omit-credential"]).get()
        }
        await #expect(throws: ResponseMappingError.credentialNotAllowed) { try await assertion([[9]], []).get() }
        await #expect(throws: ResponseMappingError.missingUserHandle) { try await assertion([], ["--omit-user"]).get() }
        await #expect(throws: ResponseMappingError.rpIDHashMismatch) { try await assertion([], ["--wrong-rp"]).get() }
        // Chromium's ResponseValid.
        #expect(try await assertion([], ["--uv", "--user-name", "alice"]).get().id == Base64URL.encode(credentialID))
        await #expect(throws: ResponseMappingError.userDetailsWithoutVerification) {
            try await assertion([], ["--user-name", "alice"]).get()
        }
        #expect(
            try await assertion([credentialID], ["--number-of-credentials", "2"]).get().id
                == Base64URL.encode(credentialID))
        await #expect(throws: ResponseMappingError.ambiguousAccount) {
            try await assertion([credentialID], ["--omit-user", "--number-of-credentials", "2"]).get()
        }
        await #expect(throws: ResponseMappingError.attestedCredentialDataInAssertion) {
            try await assertion([credentialID], ["--attested"]).get()
        }
        // Chromium's GetAssertionTask refuses an hmac-secret output it did not ask for.
        await #expect(throws: ResponseMappingError.unexpectedExtension("hmac-secret")) {
            try await assertion([credentialID], ["--extension", "hmac-secret"]).get()
        }
        await #expect(throws: ResponseMappingError.unexpectedExtension("credBlob")) {
            try await assertion([credentialID], ["--extension", "credBlob"]).get()
        }
        let noUser = try await assertion([credentialID], ["--omit-user"]).get()
        #expect(noUser.response.userHandle == nil)
        #expect(!String(decoding: noUser.json, as: UTF8.self).contains("userHandle"))
    }
}
