import Crypto
import Foundation
import HybridAuthenticator
import HybridCTAP
import HybridCore
import Testing

@Suite struct CTAPAuthenticatorGetAssertionTests {
    /// Registers a passkey through the engine and returns its ID and public key.
    static func register(
        _ authenticator: CTAPAuthenticator, userID: [UInt8] = [1, 2, 3, 4], userName: String = "alice", rk: Bool = true
    ) async throws -> (id: [UInt8], key: P256.Signing.PublicKey) {
        let request = Fixtures.makeCredential(
            userID: userID, userName: userName, options: CTAPRequestOptions(residentKey: rk))
        let response = try MakeCredentialResponse(responseBytes: await authenticator.handle(request.encoded))
        let attested = try #require(response.authenticatorData.attestedCredentialData)
        return (attested.credentialID, try COSEKey(cbor: attested.credentialPublicKey).publicKey)
    }

    /// A passkey made here has signature counter 0 and keeps it (as synced passkeys do, so that
    /// it can be exported in CXF, which carries only zero-counter passkeys).
    @Test func discoverableAssertionSignsWithAZeroCounter() async throws {
        let store = InMemoryPasskeyStore()
        let user = ScriptedUser()
        let authenticator = Fixtures.authenticator(store: store, user: user)
        let (id, key) = try await Self.register(authenticator)
        for expectedCount in [UInt32](repeating: 0, count: 3) {
            let bytes = await authenticator.handle(Fixtures.getAssertion().encoded)
            let response = try GetAssertionResponse(responseBytes: bytes)
            #expect(response.encodedResponse == bytes)
            #expect(response.credential == PublicKeyCredentialDescriptor(id: id))
            #expect(response.authenticatorData.rpIDHash == AuthenticatorData.rpIDHash("example.com"))
            #expect(response.authenticatorData.flags == [.userPresent])
            #expect(response.authenticatorData.signCount == expectedCount)
            #expect(response.user == PublicKeyCredentialUserEntity(id: [1, 2, 3, 4]))
            #expect(response.userSelected == true)
            #expect(response.numberOfCredentials == nil)
            let signature = try P256.Signing.ECDSASignature(derRepresentation: response.signature)
            #expect(key.isValidSignature(signature, for: response.authenticatorData.encoded + Fixtures.clientDataHash))
            #expect(
                !key.isValidSignature(
                    signature, for: response.authenticatorData.encoded + [UInt8](repeating: 0, count: 32)))
            #expect(await store.list().first?.signCount == expectedCount)
        }
        #expect(await user.log.last == "confirm getAssertion example.com alice")
    }

    /// A passkey that already counted (made by a version that counted) goes on counting: going
    /// back to 0 would look like a cloned authenticator to the relying party.
    @Test func aPasskeyWithACounterGoesOnCounting() async throws {
        var passkey = Fixtures.passkey(id: [7], user: [1, 2, 3, 4], name: "alice")
        passkey.metadata.signCount = 5
        let store = InMemoryPasskeyStore([passkey])
        let authenticator = Fixtures.authenticator(store: store)
        for expectedCount in UInt32(6)...7 {
            let response = try GetAssertionResponse(
                responseBytes: await authenticator.handle(Fixtures.getAssertion().encoded))
            #expect(response.authenticatorData.signCount == expectedCount)
            #expect(await store.list().first?.signCount == expectedCount)
        }
    }

    @Test func allowListFiltersAndFindsNonDiscoverablePasskeys() async throws {
        let authenticator = Fixtures.authenticator()
        let (id, _) = try await Self.register(authenticator, rk: false)
        // Not discoverable: an empty allow list finds nothing.
        #expect(await authenticator.handle(Fixtures.getAssertion().encoded) == [0x2e])
        #expect(await authenticator.handle(Fixtures.getAssertion(allowList: []).encoded) == [0x2e])
        #expect(
            await authenticator.handle(
                Fixtures.getAssertion(allowList: [PublicKeyCredentialDescriptor(id: [0])]).encoded) == [0x2e])
        let allow = [
            PublicKeyCredentialDescriptor(id: [0]), PublicKeyCredentialDescriptor(id: id, transports: ["usb"]),
        ]
        let response = try GetAssertionResponse(
            responseBytes: await authenticator.handle(Fixtures.getAssertion(allowList: allow).encoded))
        #expect(response.credential?.id == id)
        // userSelected only answers a discoverable request: Chromium refuses it for an allow list.
        #expect(response.userSelected == nil)
        // Another RP never sees it.
        #expect(
            await authenticator.handle(Fixtures.getAssertion(rp: "other.example", allowList: allow).encoded) == [0x2e])
    }

    @Test func noCredentialsAnswers0x2E() async {
        let user = ScriptedUser()
        let authenticator = Fixtures.authenticator(user: user)
        let outcome = await authenticator.process(Fixtures.getAssertion().encoded)
        #expect(outcome.response == [0x2e] && outcome.status == .noCredentials && outcome.rpID == "example.com")
        #expect(await user.log.isEmpty)
    }

    @Test func severalAccountsLetTheUserChoose() async throws {
        let user = ScriptedUser(choice: 1)
        let authenticator = Fixtures.authenticator(user: user)
        _ = try await Self.register(authenticator, userID: [1], userName: "alice")
        let (bobID, bobKey) = try await Self.register(authenticator, userID: [2], userName: "bob")
        let (carolID, _) = try await Self.register(authenticator, userID: [3], userName: "carol")
        let response = try GetAssertionResponse(
            responseBytes: await authenticator.handle(Fixtures.getAssertion().encoded))
        // Offered newest first: carol, bob, alice; index 1 is bob.
        #expect(await user.offeredAccounts.map(\.userName) == ["carol", "bob", "alice"])
        #expect(await user.log.last == "choose example.com 3")
        #expect(response.credential?.id == bobID)
        #expect(response.user?.id == [2])
        #expect(response.userSelected == true)
        let signature = try P256.Signing.ECDSASignature(derRepresentation: response.signature)
        #expect(bobKey.isValidSignature(signature, for: response.authenticatorData.encoded + Fixtures.clientDataHash))
        await user.set(choice: .some(nil))
        #expect(await authenticator.handle(Fixtures.getAssertion().encoded) == [0x27])
        await user.set(choice: 7)
        #expect(await authenticator.handle(Fixtures.getAssertion().encoded) == [0x27])
        await user.set(choice: 0)
        let chosen = try GetAssertionResponse(
            responseBytes: await authenticator.handle(Fixtures.getAssertion().encoded))
        #expect(chosen.credential?.id == carolID)
    }

    @Test func deniedPresenceLeavesTheCounter() async throws {
        let store = InMemoryPasskeyStore()
        let user = ScriptedUser()
        let authenticator = Fixtures.authenticator(store: store, user: user)
        _ = try await Self.register(authenticator)
        await user.set(approves: false)
        #expect(await authenticator.handle(Fixtures.getAssertion().encoded) == [0x27])
        #expect(await store.list().first?.signCount == 0)
    }

    @Test func userVerificationAddsUVAndNames() async throws {
        let user = ScriptedUser()
        let authenticator = Fixtures.authenticator(user: user)
        _ = try await Self.register(authenticator)
        let request = Fixtures.getAssertion(options: CTAPRequestOptions(userVerification: true))
        let response = try GetAssertionResponse(responseBytes: await authenticator.handle(request.encoded))
        #expect(response.authenticatorData.flags == [.userPresent, .userVerified])
        #expect(response.user == PublicKeyCredentialUserEntity(id: [1, 2, 3, 4], name: "alice", displayName: "Alice"))
        #expect(await user.log.suffix(2) == ["confirm getAssertion example.com alice", "verify"])
        await user.set(verifies: false)
        #expect(await authenticator.handle(request.encoded) == [0x27])
    }

    /// A silent getAssertion (`up` = false) is refused, asks nothing and signs nothing: a signature
    /// must follow a user's consent. The request bytes are written from CTAP 2.1 §6.2.2, not by our
    /// encoder: {1: rpId "example.com", 2: clientDataHash 32 × 0x11, 5: {"up": false}}.
    @Test func silentAssertionIsRefused() async throws {
        let user = ScriptedUser()
        var passkey = Fixtures.passkey(id: [7], user: [1, 2, 3, 4], name: "alice")
        passkey.metadata.signCount = 5
        let authenticator = Fixtures.authenticator(store: InMemoryPasskeyStore([passkey]), user: user)
        let countBefore = await user.log.count
        let request: [UInt8] =
            [0x02, 0xa3, 0x01, 0x6b] + Array("example.com".utf8) + [0x02, 0x58, 0x20]
            + [UInt8](repeating: 0x11, count: 32)
            + [0x05, 0xa1, 0x62, 0x75, 0x70, 0xf4]
        #expect(await authenticator.handle(request) == [0x2b])  // CTAP2_ERR_UNSUPPORTED_OPTION
        #expect(await user.log.count == countBefore)
        // The counter (of a passkey that counts) did not move: the next, approved, assertion is 6.
        let approved = try GetAssertionResponse(
            responseBytes: await authenticator.handle(Fixtures.getAssertion().encoded))
        #expect(approved.authenticatorData.signCount == 6)
    }

    @Test func invalidOptions() async throws {
        let authenticator = Fixtures.authenticator(user: ScriptedUser(canVerifyUser: false))
        _ = try await Self.register(authenticator)
        #expect(
            await authenticator.handle(Fixtures.getAssertion(options: CTAPRequestOptions(residentKey: true)).encoded)
                == [0x2b])
        #expect(
            await authenticator.handle(
                Fixtures.getAssertion(options: CTAPRequestOptions(userVerification: true)).encoded) == [0x2c])
        var pin = Fixtures.getAssertion()
        pin.pinUvAuthParam = []
        #expect(await authenticator.handle(pin.encoded) == [0x14])
    }
}
