import Foundation
import HybridAuthenticator
import HybridCore
import TestLoopbackRelay
import TestSupport
import Testing

@testable import HybridClient

/// The independent check: outputs of real loopback ceremonies (client ↔ relay ↔ authenticator)
/// handed to py_webauthn acting as the relying party (Tests/Interop/verify_webauthn.py).
@Suite struct PyWebAuthnLoopbackTests {
    static let script = ExternalTool.interopDirectory.appendingPathComponent("verify_webauthn.py").path

    /// Runs the verifier; returns its exit status (0 verified, 1 refused) and stdout.
    static func verify(_ arguments: [String], response: Data) async throws -> (status: Int32, stdout: [UInt8]) {
        let result = try await ExternalTool.runReportingStatus(
            "python3", [script] + arguments + ["--response", "-"], input: [UInt8](response))
        return (result.status, result.stdout)
    }

    @Test func registrationThenAuthenticationVerifyAndAlteredOnesDoNot() async throws {
        try #require(await ExternalTool.hasPyWebAuthn, "pip install webauthn")
        let air = try LoopbackCeremony.freshAir()
        let store = InMemoryPasskeyStore()
        let createChallenge = randomBytes(32)
        let getChallenge = randomBytes(32)
        let (registration, authentication) = try await LoopbackRelay.with { relay in
            let options = LoopbackCeremonyTests.options(relay: relay, air: air)
            let created = try await LoopbackCeremony.run(
                try LoopbackCeremonyTests.registration(challenge: createChallenge), options: options,
                phone: LoopbackCeremony.runnerPhone(store: store, relay: relay, air: air))
            guard case .registration(let registration) = try created.response() else { throw TestFailure("create") }
            let credentialID = try #require(Base64URL.decode(registration.id))
            let signedIn = try await LoopbackCeremony.run(
                try LoopbackCeremonyTests.authentication(challenge: getChallenge, allow: [credentialID]),
                options: options, phone: LoopbackCeremony.runnerPhone(store: store, relay: relay, air: air))
            guard case .authentication(let authentication) = try signedIn.response() else { throw TestFailure("get") }
            return (registration, authentication)
        }

        let origin = LoopbackCeremonyTests.origin
        let rpID = LoopbackCeremonyTests.rpID
        let registerArguments = { (challenge: [UInt8], origin: String) in
            ["register", "--challenge=" + Base64URL.encode(challenge), "--origin", origin, "--rp-id", rpID]
        }
        let registered = try await Self.verify(registerArguments(createChallenge, origin), response: registration.json)
        #expect(registered.status == 0)
        #expect(try await Self.verify(registerArguments(getChallenge, origin), response: registration.json).status == 1)
        #expect(
            try await Self.verify(
                registerArguments(createChallenge, "https://evil.example"), response: registration.json
            )
            .status == 1)

        let credentialFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("credential-\(UUID().uuidString).json")
        try Data(registered.stdout).write(to: credentialFile)
        defer { try? FileManager.default.removeItem(at: credentialFile) }
        let authenticateArguments = { (challenge: [UInt8], origin: String) in
            [
                "authenticate", "--challenge=" + Base64URL.encode(challenge), "--origin", origin, "--rp-id", rpID,
                "--credential", credentialFile.path,
            ]
        }
        #expect(
            try await Self.verify(authenticateArguments(getChallenge, origin), response: authentication.json).status
                == 0)
        #expect(
            try await Self.verify(authenticateArguments(createChallenge, origin), response: authentication.json).status
                == 1)
        #expect(
            try await Self.verify(
                authenticateArguments(getChallenge, "https://example.org"), response: authentication.json
            )
            .status == 1)
    }
}
