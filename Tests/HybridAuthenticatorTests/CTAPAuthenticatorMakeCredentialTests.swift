import Crypto
import Foundation
import HybridAuthenticator
import HybridCTAP
import HybridCore
import Testing

@Suite struct CTAPAuthenticatorMakeCredentialTests {
    @Test func createsAnES256PasskeyWithNoneAttestation() async throws {
        let store = InMemoryPasskeyStore()
        let user = ScriptedUser()
        let random = CountingRandom(seed: 7)
        let authenticator = Fixtures.authenticator(store: store, user: user, random: random)
        let bytes = await authenticator.handle(Fixtures.makeCredential().encoded)
        #expect(bytes.first == 0x00)
        let response = try MakeCredentialResponse(responseBytes: bytes)
        #expect(response.format == "none")
        #expect(response.attestationStatement == .map([]))
        let authData = response.authenticatorData
        #expect(authData.rpIDHash == Array(SHA256.hash(data: Array("example.com".utf8))))
        #expect(authData.flags == [.userPresent, .attestedCredentialData])
        #expect(authData.signCount == 0)
        let attested = try #require(authData.attestedCredentialData)
        #expect(attested.aaguid == AuthenticatorConfiguration.aaguid)
        #expect(attested.credentialID.count == Passkey.credentialIDLength)
        // The injected randomness decides key and ID: first 32 bytes the key, next 16 the ID.
        let expectedRandom = CountingRandom(seed: 7).next(48)
        let expectedKey = try P256.Signing.PrivateKey(rawRepresentation: expectedRandom[0..<32])
        #expect(attested.credentialID == Array(expectedRandom[32..<48]))
        let key = try COSEKey(cbor: attested.credentialPublicKey)
        #expect(key.x963Representation == Array(expectedKey.publicKey.x963Representation))
        // Canonical: re-encoding the parsed response gives the same bytes.
        #expect(response.encodedResponse == bytes)

        let stored = await store.list()
        #expect(stored.count == 1)
        #expect(stored.first?.credentialID == attested.credentialID)
        #expect(stored.first?.isDiscoverable == true)
        #expect(stored.first?.userName == "alice" && stored.first?.userHandle == [1, 2, 3, 4])
        #expect(stored.first?.createdAt == Fixtures.fixedDate.addingTimeInterval(1))
        #expect(await user.log == ["confirm makeCredential example.com alice"])
    }

    @Test func userVerificationSetsUV() async throws {
        let user = ScriptedUser()
        let authenticator = Fixtures.authenticator(user: user)
        let request = Fixtures.makeCredential(options: CTAPRequestOptions(residentKey: true, userVerification: true))
        let response = try MakeCredentialResponse(responseBytes: await authenticator.handle(request.encoded))
        #expect(response.authenticatorData.flags == [.userPresent, .userVerified, .attestedCredentialData])
        #expect(await user.log == ["confirm makeCredential example.com alice", "verify"])
    }

    @Test func failedUserVerificationIsDenied() async throws {
        let store = InMemoryPasskeyStore()
        let authenticator = Fixtures.authenticator(store: store, user: ScriptedUser(verifies: false))
        let request = Fixtures.makeCredential(options: CTAPRequestOptions(userVerification: true))
        #expect(await authenticator.handle(request.encoded) == [0x27])
        #expect(await store.list().isEmpty)
    }

    @Test func deniedUserPresenceStoresNothing() async throws {
        let store = InMemoryPasskeyStore()
        let authenticator = Fixtures.authenticator(store: store, user: ScriptedUser(approves: false))
        let outcome = await authenticator.process(Fixtures.makeCredential().encoded)
        #expect(outcome.response == [0x27])
        #expect(
            outcome.status == .operationDenied && outcome.command == .makeCredential && outcome.rpID == "example.com")
        #expect(await store.list().isEmpty)
    }

    @Test func onlyES256IsSupported() async {
        let user = ScriptedUser()
        let authenticator = Fixtures.authenticator(user: user)
        #expect(await authenticator.handle(Fixtures.makeCredential(algorithms: [-257, -8]).encoded) == [0x26])
        #expect(await authenticator.handle(Fixtures.makeCredential(algorithms: []).encoded) == [0x26])
        var otherType = Fixtures.makeCredential()
        otherType.publicKeyCredentialParameters = [PublicKeyCredentialParameters(type: "other", algorithm: -7)]
        #expect(await authenticator.handle(otherType.encoded) == [0x26])
        #expect(await user.log.isEmpty)
        #expect(await authenticator.handle(Fixtures.makeCredential(algorithms: [-257, -7]).encoded).first == 0x00)
    }

    @Test func excludedCredentialAnswers0x19AfterUserPresence() async throws {
        let store = InMemoryPasskeyStore()
        let user = ScriptedUser()
        let authenticator = Fixtures.authenticator(store: store, user: user)
        let first = try MakeCredentialResponse(
            responseBytes: await authenticator.handle(Fixtures.makeCredential().encoded))
        let id = try #require(first.authenticatorData.attestedCredentialData?.credentialID)
        let exclude = [
            PublicKeyCredentialDescriptor(id: [9, 9, 9]), PublicKeyCredentialDescriptor(id: id, transports: ["hybrid"]),
        ]
        #expect(await authenticator.handle(Fixtures.makeCredential(excludeList: exclude).encoded) == [0x19])
        #expect(await user.log.last == "confirm excludedCredential example.com alice")
        await user.set(approves: false)
        #expect(await authenticator.handle(Fixtures.makeCredential(excludeList: exclude).encoded) == [0x27])
        #expect(await store.list().count == 1)
        // The same credential ID listed for another RP does not exclude.
        await user.set(approves: true)
        #expect(
            await authenticator.handle(Fixtures.makeCredential(rp: "other.example", excludeList: exclude).encoded).first
                == 0x00)
        // A descriptor of another type is ignored.
        let otherType = [PublicKeyCredentialDescriptor(type: "future", id: id)]
        #expect(await authenticator.handle(Fixtures.makeCredential(excludeList: otherType).encoded).first == 0x00)
    }

    @Test func residentKeyReplacesTheSameAccount() async throws {
        let store = InMemoryPasskeyStore()
        let authenticator = Fixtures.authenticator(store: store)
        _ = await authenticator.handle(Fixtures.makeCredential().encoded)
        _ = await authenticator.handle(Fixtures.makeCredential().encoded)
        #expect(await store.list().count == 1)
        _ = await authenticator.handle(Fixtures.makeCredential(userID: [5], userName: "bob").encoded)
        _ = await authenticator.handle(Fixtures.makeCredential(options: CTAPRequestOptions(residentKey: false)).encoded)
        let list = await store.list()
        #expect(list.count == 3)
        #expect(list.map(\.isDiscoverable) == [false, true, true])
    }

    @Test func invalidOptionsAndPinParameters() async {
        let authenticator = Fixtures.authenticator(user: ScriptedUser(canVerifyUser: false))
        #expect(
            await authenticator.handle(
                Fixtures.makeCredential(options: CTAPRequestOptions(userPresence: false)).encoded) == [0x2c])
        #expect(
            await authenticator.handle(
                Fixtures.makeCredential(options: CTAPRequestOptions(userVerification: true)).encoded) == [0x2c])
        var pin = Fixtures.makeCredential()
        pin.pinUvAuthParam = [1, 2, 3]
        #expect(await authenticator.handle(pin.encoded) == [0x14])
        pin.pinUvAuthProtocol = 1
        #expect(await authenticator.handle(pin.encoded) == [0x02])
        var enterprise = Fixtures.makeCredential()
        enterprise.enterpriseAttestation = 1
        #expect(await authenticator.handle(enterprise.encoded) == [0x02])
    }

    @Test func packedSelfAttestationVerifiesWithTheCredentialKey() async throws {
        let authenticator = Fixtures.authenticator(configuration: AuthenticatorConfiguration(attestation: .packedSelf))
        let response = try MakeCredentialResponse(
            responseBytes: await authenticator.handle(Fixtures.makeCredential().encoded))
        #expect(response.format == "packed")
        #expect(response.attestationStatement[textKey: "alg"] == .int(-7))
        #expect(response.attestationStatement[textKey: "x5c"] == nil)
        let signature = try P256.Signing.ECDSASignature(
            derRepresentation: try #require(response.attestationStatement[textKey: "sig"]?.bytesValue))
        let key = try COSEKey(cbor: try #require(response.authenticatorData.attestedCredentialData).credentialPublicKey)
            .publicKey
        #expect(key.isValidSignature(signature, for: response.authenticatorData.encoded + Fixtures.clientDataHash))
    }

    /// Requests written by other implementations: the CTAP 2.1 spec example (via webauthn-rs;
    /// rk, ES256 among three algorithms) and the synthetic S1 session's request.
    @Test func servesRequestsFromTheSharedVectors() async throws {
        let spec = try AuthenticatorVectors.hex(
            "frame.json", case: "webauthn-rs-ctap21-make-credential", key: "payload")
        let store = InMemoryPasskeyStore()
        let authenticator = Fixtures.authenticator(store: store)
        let response = try MakeCredentialResponse(responseBytes: await authenticator.handle(spec))
        #expect(
            response.authenticatorData.rpIDHash
                == (try Hex.decode("0021f5fc0b85cd22e60623bcd7d1ca48948909249b4776eb515154e57b66ae12")))
        #expect(await store.list().first?.userName == "testctap@ctap.com")
        #expect(await store.list().first?.isDiscoverable == true)

        let session = try AuthenticatorVectors.sessionFrame("synthetic-s1-qr-flow", index: 4)
        let second = try MakeCredentialResponse(responseBytes: await authenticator.handle(Array(session.dropFirst())))
        #expect(second.authenticatorData.rpIDHash == AuthenticatorData.rpIDHash("example.com"))
        // No options: rk defaults to false.
        #expect(await store.list().first?.isDiscoverable == false)
    }
}
