import Foundation
import HybridAuthenticator
import HybridCTAP
import HybridCore
import Logging
import Testing

@testable import hybrid_authenticator

/// getInfo's `uv` and what makeCredential/getAssertion do with `uv`, for the authenticator the serve
/// command builds: plaintext stores cannot verify users (`uv: false`, `uv` requests refused with
/// CTAP2_ERR_INVALID_OPTION, CTAP 2.1 §6.1.2/§6.2.2 step 5), encrypted ones can (`uv: true`).
@Suite(.timeLimit(.minutes(5)))
struct UserVerificationConfigurationTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The authenticator `hybrid-authenticator <arguments> --store <temporary file>` serves with.
    func authenticator(_ arguments: [String], in directory: TemporaryDirectory) async throws -> CTAPAuthenticator {
        let command = try ServeCommand.parse(["FIDO:/0"] + arguments + ["--store", directory.file("s.json")])
        let store = try await command.storeOptions.open(
            console: ScriptedConsole([]), environment: [StoreOptions.passphraseVariable: "correct horse"],
            newStoreParameters: .insecureFastForTesting)
        return command.makeAuthenticator(store: store, logger: Self.quiet)
    }

    /// getInfo's `uv` as a client reads it: from the command's bytes, and from the post-handshake
    /// getInfo the runner sends (the same value).
    func advertisedUV(_ authenticator: CTAPAuthenticator) async throws -> Bool? {
        let bytes = await authenticator.handle([0x04])
        let info = try AuthenticatorGetInfoResponse(cbor: try CTAPResponse.successBody(bytes))
        let postHandshake = try AuthenticatorGetInfoResponse(bytes: authenticator.getInfo.encoded)
        #expect(postHandshake.options?["uv"] == info.options?["uv"])
        return info.options?["uv"]
    }

    /// The status byte and, when OK, the UP and UV flags of the answer.
    func makeCredential(_ authenticator: CTAPAuthenticator, uv: Bool?) async throws -> (
        status: UInt8, flags: AuthenticatorData.Flags?
    ) {
        let request = Fixtures.makeCredential(options: CTAPRequestOptions(residentKey: true, userVerification: uv))
        let bytes = await authenticator.handle(request.encoded)
        guard bytes.first == 0x00 else { return (bytes.first ?? 0xFF, nil) }
        let flags = try MakeCredentialResponse(responseBytes: bytes).authenticatorData.flags
        return (0, flags.intersection([.userPresent, .userVerified]))
    }

    func getAssertion(_ authenticator: CTAPAuthenticator, uv: Bool?) async throws -> (
        status: UInt8, flags: AuthenticatorData.Flags?
    ) {
        let bytes = await authenticator.handle(
            Fixtures.getAssertion(options: CTAPRequestOptions(userVerification: uv)).encoded)
        guard bytes.first == 0x00 else { return (bytes.first ?? 0xFF, nil) }
        let flags = try GetAssertionResponse(responseBytes: bytes).authenticatorData.flags
        return (0, flags.intersection([.userPresent, .userVerified]))
    }

    @Test func plaintextStoreWithYesAdvertisesNoUVAndRefusesUVRequests() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let authenticator = try await authenticator(["--insecure-plaintext-store", "--yes"], in: directory)
        #expect(try await advertisedUV(authenticator) == false)
        // What a client sends for userVerification "required": refused as CTAP 2.1 says (0x2C),
        // not denied after the fact (0x27), and nothing is stored.
        #expect(try await makeCredential(authenticator, uv: true).status == 0x2C)
        #expect(try await authenticator.store.list().isEmpty)
        // "preferred" against uv: false: the client leaves uv out; the answer has UP without UV.
        let created = try await makeCredential(authenticator, uv: nil)
        #expect(created.status == 0x00 && created.flags == [.userPresent])
        #expect(try await getAssertion(authenticator, uv: true).status == 0x2C)
        let asserted = try await getAssertion(authenticator, uv: nil)
        #expect(asserted.status == 0x00 && asserted.flags == [.userPresent])
    }

    @Test func encryptedStoreWithYesAdvertisesAndPerformsUV() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let authenticator = try await authenticator(["--yes"], in: directory)
        #expect(try await advertisedUV(authenticator) == true)
        let created = try await makeCredential(authenticator, uv: true)
        #expect(created.status == 0x00 && created.flags == [.userPresent, .userVerified])
        let asserted = try await getAssertion(authenticator, uv: true)
        #expect(asserted.status == 0x00 && asserted.flags == [.userPresent, .userVerified])
        let withoutUV = try await getAssertion(authenticator, uv: nil)
        #expect(withoutUV.status == 0x00 && withoutUV.flags == [.userPresent])
    }

    @Test func theTerminalPromptAdvertisesUVOnlyWithAPassphrase() async throws {
        let plainDirectory = try TemporaryDirectory()
        let encryptedDirectory = try TemporaryDirectory()
        defer {
            plainDirectory.cleanUp()
            encryptedDirectory.cleanUp()
        }
        let plaintext = try await authenticator(["--insecure-plaintext-store"], in: plainDirectory)
        #expect(try await advertisedUV(plaintext) == false)
        // Refused before any prompt: the terminal is never touched.
        #expect(try await makeCredential(plaintext, uv: true).status == 0x2C)
        let encrypted = try await authenticator([], in: encryptedDirectory)
        #expect(try await advertisedUV(encrypted) == true)
    }

    @Test func theInteractionsSayWhetherTheyCanVerify() {
        #expect(!AutoApproveUserInteraction().canVerifyUser)
        #expect(AutoApproveUserInteraction(userVerification: true).canVerifyUser)
        #expect(!TerminalUserInteraction(console: ScriptedConsole([]), verifyPassphrase: nil).canVerifyUser)
        #expect(TerminalUserInteraction(console: ScriptedConsole([]), verifyPassphrase: { _ in false }).canVerifyUser)
    }
}
