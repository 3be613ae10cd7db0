import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridCore
import TestLoopbackRelay
import TestSupport
import Testing

@testable import HybridClient

/// WebAuthn extensions end to end: our client ↔ relay on 127.0.0.1 ↔ our authenticator role
/// (`AuthenticatorRunner`) over the simulated air. Expected prf results are computed by Python's
/// `hmac`/`hashlib` from the secret the authenticator stored, not by our code.
@Suite struct LoopbackExtensionTests {
    static let inputA = Array("first input".utf8)
    static let inputB = Array("second input".utf8)

    /// HMAC-SHA256(secret, SHA-256("WebAuthn PRF" ‖ 0x00 ‖ input)), base64url, from Python.
    static func expectedPRF(secret: [UInt8], input: [UInt8]) async throws -> String {
        let script = """
            import base64, hashlib, hmac, sys
            secret, data = bytes.fromhex(sys.argv[1]), bytes.fromhex(sys.argv[2])
            salt = hashlib.sha256(b"WebAuthn PRF\\x00" + data).digest()
            out = hmac.new(secret, salt, hashlib.sha256).digest()
            print(base64.urlsafe_b64encode(out).rstrip(b"=").decode())
            """
        let output = try await ExternalTool.run("python3", ["-c", script, Hex.encode(secret), Hex.encode(input)])
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func run(
        _ request: HybridClientRequest, store: InMemoryPasskeyStore, relay: TunnelServerOrigin, air: SimulatedAir
    )
        async throws -> LoopbackCeremony.Outcome
    {
        try await LoopbackCeremony.run(
            request, options: LoopbackCeremonyTests.options(relay: relay, air: air),
            phone: LoopbackCeremony.runnerPhone(store: store, relay: relay, air: air))
    }

    static func registration(extensions: String) throws -> HybridClientRequest {
        let options = try ExtensionInteropTests.creationOptions(extensions: extensions, uv: "required")
        return .registration(
            try RegistrationCeremony(options: options, origin: try WebOrigin(ExtensionInteropTests.origin)))
    }

    static func authentication(extensions: String, allow: [[UInt8]], uv: String = "preferred") throws
        -> HybridClientRequest
    {
        let list = allow.map { #"{"type": "public-key", "id": "\#(Base64URL.encode($0))"}"# }.joined(separator: ",")
        let json = """
            {"challenge": "\(Base64URL.encode(randomBytes(32)))", "rpId": "example.com", "allowCredentials": [\(list)],
             "userVerification": "\(uv)", "extensions": \(extensions)}
            """
        let options = try PublicKeyCredentialRequestOptionsJSON(json: Data(json.utf8))
        return .authentication(
            try AuthenticationCeremony(options: options, origin: try WebOrigin(ExtensionInteropTests.origin)))
    }

    @Test func prfCredPropsAndCredProtectThroughOurAuthenticator() async throws {
        let air = try LoopbackCeremony.freshAir()
        let store = InMemoryPasskeyStore()
        let a = Base64URL.encode(Self.inputA)
        let b = Base64URL.encode(Self.inputB)
        try await LoopbackRelay.with { relay in
            // create(): prf with eval, credProps, and a credProtect level the phone must honour.
            let created = try await Self.run(
                try Self.registration(
                    extensions: """
                        {"prf": {"eval": {"first": "\(a)"}}, "credProps": true,
                         "credentialProtectionPolicy": "userVerificationRequired", "enforceCredentialProtectionPolicy": true}
                        """), store: store, relay: relay, air: air)
            guard case .registration(let registration) = try created.response() else {
                throw TestFailure("not a registration")
            }
            let credentialID = try #require(Base64URL.decode(registration.id))
            let passkey = try #require(await store.passkeys(forRPID: "example.com").first)
            #expect(passkey.credentialID == credentialID)
            #expect(passkey.metadata.credentialProtection == .userVerificationRequired)
            let secret = try #require(passkey.prfSecret)
            let expectedA = try await Self.expectedPRF(secret: secret, input: Self.inputA)
            let expectedB = try await Self.expectedPRF(secret: secret, input: Self.inputB)
            #expect(registration.clientExtensionResults.prf?.enabled == true)
            #expect(registration.clientExtensionResults.prf?.results?.first == expectedA)
            #expect(registration.clientExtensionResults.credProps?.rk == true)

            // get(): eval with two inputs, and evalByCredential winning over eval for this credential.
            let evaluated = try await Self.run(
                try Self.authentication(
                    extensions: #"{"prf": {"eval": {"first": "\#(a)", "second": "\#(b)"}}}"#, allow: [credentialID]),
                store: store, relay: relay, air: air)
            guard case .authentication(let assertion) = try evaluated.response() else {
                throw TestFailure("not an authentication")
            }
            #expect(assertion.clientExtensionResults.prf?.results?.first == expectedA)
            #expect(assertion.clientExtensionResults.prf?.results?.second == expectedB)
            #expect(expectedA != expectedB)

            let byCredential = try await Self.run(
                try Self.authentication(
                    extensions:
                        #"{"prf": {"eval": {"first": "\#(a)"}, "evalByCredential": {"\#(registration.id)": {"first": "\#(b)"}}}}"#,
                    allow: [credentialID]),
                store: store, relay: relay, air: air)
            guard case .authentication(let chosen) = try byCredential.response() else {
                throw TestFailure("not an authentication")
            }
            #expect(chosen.clientExtensionResults.prf?.results?.first == expectedB)
            #expect(chosen.clientExtensionResults.prf?.results?.second == nil)

            // credProtect level 3: without user verification the phone does not find the passkey.
            let refused = try await Self.run(
                try Self.authentication(extensions: "{}", allow: [credentialID], uv: "discouraged"),
                store: store, relay: relay, air: air)
            #expect(refused.clientError?.ctapStatus == .noCredentials)
        }
    }
}
