import Crypto
import Foundation
import HybridAuthenticator
import HybridCTAP
import HybridCore
import TestChildProcess
import Testing

/// The prf and credProtect extensions of the engine. Expected prf results come from Python's
/// `hmac`/`hashlib` over the passkey's secret, never from the engine's own HMAC.
@Suite struct CTAPAuthenticatorExtensionTests {
    static let saltA = [UInt8](repeating: 0xa1, count: 32)
    static let saltB = Array(SHA256.hash(data: Array("WebAuthn PRF".utf8) + [0] + Array("second".utf8)))
    static let saltC = [UInt8](repeating: 0x0c, count: 32)

    /// HMAC-SHA256(key, message) for each pair, computed by Python's standard library.
    static func pythonHMAC(_ pairs: [(key: [UInt8], message: [UInt8])]) async throws -> [[UInt8]] {
        let script = """
            import hashlib, hmac, sys
            for pair in sys.argv[1:]:
                key, message = pair.split(':')
                print(hmac.new(bytes.fromhex(key), bytes.fromhex(message), hashlib.sha256).hexdigest())
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + pairs.map { Hex.encode($0.key) + ":" + Hex.encode($0.message) }
        let output = try await ChildProcess.run(process)
        #expect(output.status == 0)
        return try String(decoding: output.stdout, as: UTF8.self).split(separator: "\n").map {
            try Hex.decode(String($0))
        }
    }

    static func prf(eval: PRFPair? = nil, byCredential: [([UInt8], PRFPair)] = []) -> CBORValue {
        var entries: [CBORMapEntry] = []
        if let eval { entries.append(CBORMapEntry("eval", eval.cbor)) }
        if !byCredential.isEmpty {
            entries.append(
                CBORMapEntry("evalByCredential", .map(byCredential.map { CBORMapEntry(.bytes($0.0), $0.1.cbor) })))
        }
        return .map(["prf": .map(entries)])
    }

    struct PRFPair {
        var first: [UInt8]
        var second: [UInt8]?
        var cbor: CBORValue {
            var entries = [CBORMapEntry("first", .bytes(first))]
            if let second { entries.append(CBORMapEntry("second", .bytes(second))) }
            return .map(entries)
        }
    }

    static func makeCredential(
        extensions: CBORValue?, uv: Bool = true, rk: Bool = true, userID: [UInt8] = [1, 2, 3, 4],
        excludeList: [PublicKeyCredentialDescriptor]? = nil
    ) -> MakeCredentialRequest {
        var request = Fixtures.makeCredential(
            userID: userID, excludeList: excludeList, options: CTAPRequestOptions(residentKey: rk, userVerification: uv)
        )
        request.extensions = extensions
        return request
    }

    static func getAssertion(extensions: CBORValue?, uv: Bool = true, allow: [[UInt8]]? = nil) -> GetAssertionRequest {
        var request = Fixtures.getAssertion(
            allowList: allow.map { $0.map { PublicKeyCredentialDescriptor(id: $0) } },
            options: CTAPRequestOptions(userVerification: uv))
        request.extensions = extensions
        return request
    }

    /// The `prf.results` of a getAssertion response, or nil when key 8 has no prf.
    static func results(_ response: GetAssertionResponse) -> (first: [UInt8]?, second: [UInt8]?)? {
        guard let results = response.unsignedExtensionOutputs?[textKey: "prf"]?[textKey: "results"] else { return nil }
        return (results[textKey: "first"]?.bytesValue, results[textKey: "second"]?.bytesValue)
    }

    static func secret(_ store: InMemoryPasskeyStore, _ id: [UInt8]) async throws -> [UInt8] {
        let passkey = try #require(await store.passkeys(forRPID: "example.com").first { $0.credentialID == id })
        return try #require(passkey.prfSecret)
    }

    // MARK: prf

    @Test func prfEnabledAtCreationAndResultsMatchPython() async throws {
        let store = InMemoryPasskeyStore()
        let authenticator = Fixtures.authenticator(store: store)
        let created = try MakeCredentialResponse(
            responseBytes: await authenticator.handle(Self.makeCredential(extensions: ["prf": .map([])]).encoded))
        // Chromium's phone shape: response key 6 {"prf": {"enabled": true}}; nothing in authData.
        #expect(created.unsignedExtensionOutputs == .map(["prf": .map(["enabled": true])]))
        #expect(
            created.authenticatorData.extensions == nil && !created.authenticatorData.flags.contains(.extensionData))
        let id = try #require(created.authenticatorData.attestedCredentialData?.credentialID)
        let secret = try await Self.secret(store, id)
        #expect(secret.count == 32 && Set(secret).count > 1)

        let expected = try await Self.pythonHMAC([(secret, Self.saltA), (secret, Self.saltB), (secret, Self.saltC)])
        let both = Self.getAssertion(extensions: Self.prf(eval: PRFPair(first: Self.saltA, second: Self.saltB)))
        for _ in 0..<2 {  // stable for the same input
            let response = try GetAssertionResponse(responseBytes: await authenticator.handle(both.encoded))
            let results = try #require(Self.results(response))
            #expect(results.first == expected[0] && results.second == expected[1])
            // Only "results" under "prf", and only "prf" under key 8.
            #expect(response.unsignedExtensionOutputs?.mapEntries?.count == 1)
            #expect(response.unsignedExtensionOutputs?[textKey: "prf"]?.mapEntries?.count == 1)
        }
        let single = Self.getAssertion(extensions: Self.prf(eval: PRFPair(first: Self.saltC)))
        let response = try GetAssertionResponse(responseBytes: await authenticator.handle(single.encoded))
        let results = try #require(Self.results(response))
        #expect(results.first == expected[2] && results.second == nil)
    }

    @Test func prfEvalAtCreationReturnsResultsOnlyWithUserVerification() async throws {
        let store = InMemoryPasskeyStore()
        let authenticator = Fixtures.authenticator(store: store)
        let request = Self.makeCredential(extensions: Self.prf(eval: PRFPair(first: Self.saltA, second: Self.saltB)))
        let created = try MakeCredentialResponse(responseBytes: await authenticator.handle(request.encoded))
        let id = try #require(created.authenticatorData.attestedCredentialData?.credentialID)
        let expected = try await Self.pythonHMAC([
            (try await Self.secret(store, id), Self.saltA), (try await Self.secret(store, id), Self.saltB),
        ])
        let prf = try #require(created.unsignedExtensionOutputs?[textKey: "prf"])
        #expect(prf[textKey: "enabled"] == true)
        #expect(prf[textKey: "results"] == .map(["first": .bytes(expected[0]), "second": .bytes(expected[1])]))

        let withoutUV = Self.makeCredential(
            extensions: Self.prf(eval: PRFPair(first: Self.saltA)), uv: false, userID: [9])
        let plain = try MakeCredentialResponse(responseBytes: await authenticator.handle(withoutUV.encoded))
        #expect(plain.unsignedExtensionOutputs == .map(["prf": .map(["enabled": true])]))
    }

    @Test func prfDiffersPerCredentialAndFollowsEvalByCredential() async throws {
        let store = InMemoryPasskeyStore()
        let authenticator = Fixtures.authenticator(store: store)
        var ids: [[UInt8]] = []
        for user in [[UInt8(1)], [2]] {
            let created = try MakeCredentialResponse(
                responseBytes: await authenticator.handle(
                    Self.makeCredential(extensions: nil, rk: false, userID: user).encoded))
            ids.append(try #require(created.authenticatorData.attestedCredentialData?.credentialID))
        }
        let secrets = [try await Self.secret(store, ids[0]), try await Self.secret(store, ids[1])]
        let expected = try await Self.pythonHMAC([
            (secrets[0], Self.saltA), (secrets[1], Self.saltA), (secrets[0], Self.saltC),
        ])
        #expect(expected[0] != expected[1])
        // The same eval input gives each credential its own output.
        for (index, id) in ids.enumerated() {
            let request = Self.getAssertion(extensions: Self.prf(eval: PRFPair(first: Self.saltA)), allow: [id])
            let response = try GetAssertionResponse(responseBytes: await authenticator.handle(request.encoded))
            #expect(Self.results(response)?.first == expected[index])
        }
        // evalByCredential: the signing credential's entry wins over eval; another's is ignored.
        let byCredential = Self.prf(
            eval: PRFPair(first: Self.saltA), byCredential: [(ids[0], PRFPair(first: Self.saltC))])
        let first = try GetAssertionResponse(
            responseBytes: await authenticator.handle(
                Self.getAssertion(extensions: byCredential, allow: [ids[0]]).encoded))
        #expect(Self.results(first)?.first == expected[2])
        let second = try GetAssertionResponse(
            responseBytes: await authenticator.handle(
                Self.getAssertion(extensions: byCredential, allow: [ids[1]]).encoded))
        #expect(Self.results(second)?.first == expected[1])
        // evalByCredential alone, for another credential: no input for this one, so no prf output.
        let other = Self.prf(byCredential: [(ids[0], PRFPair(first: Self.saltC))])
        let none = try GetAssertionResponse(
            responseBytes: await authenticator.handle(Self.getAssertion(extensions: other, allow: [ids[1]]).encoded))
        #expect(none.unsignedExtensionOutputs == nil)
    }

    @Test func prfNeedsUserVerificationAndASecret() async throws {
        let store = InMemoryPasskeyStore()
        let authenticator = Fixtures.authenticator(store: store)
        #expect(await authenticator.handle(Self.makeCredential(extensions: nil).encoded).first == 0x00)
        let withoutUV = Self.getAssertion(extensions: Self.prf(eval: PRFPair(first: Self.saltA)), uv: false)
        let plain = try GetAssertionResponse(responseBytes: await authenticator.handle(withoutUV.encoded))
        #expect(plain.unsignedExtensionOutputs == nil)

        // A passkey stored before prf existed (no secret) still signs, without prf output.
        let legacyStore = InMemoryPasskeyStore()
        await legacyStore.add(Fixtures.passkey(id: [7, 7], user: [7], name: "legacy"))
        let legacy = Fixtures.authenticator(store: legacyStore)
        let bytes = await legacy.handle(
            Self.getAssertion(extensions: Self.prf(eval: PRFPair(first: Self.saltA))).encoded)
        let response = try GetAssertionResponse(responseBytes: bytes)
        #expect(response.credential?.id == [7, 7] && response.unsignedExtensionOutputs == nil)
    }

    @Test func malformedExtensionInputsAreTypedStatuses() async throws {
        let authenticator = Fixtures.authenticator()
        #expect(await authenticator.handle(Self.makeCredential(extensions: nil).encoded).first == 0x00)
        let short = Array(Self.saltA.dropLast())
        let assertionCases: [(CBORValue, UInt8)] = [
            (["prf": .bytes([1])], 0x11),
            (["prf": ["eval": .bytes(Self.saltA)]], 0x11),
            (["prf": ["eval": ["first": .bytes(short)]]], 0x03),
            (["prf": ["eval": ["first": .bytes(Self.saltA), "second": .text("x")]]], 0x11),
            (["prf": ["eval": ["second": .bytes(Self.saltA)]]], 0x14),
            (["prf": ["evalByCredential": ["id": ["first": .bytes(Self.saltA)]]]], 0x02),
            (["prf": ["evalByCredential": [.bytes([]): ["first": .bytes(Self.saltA)]]]], 0x02),
            (["prf": ["evalByCredential": .array([])]], 0x11),
        ]
        for (extensions, status) in assertionCases {
            #expect(
                await authenticator.handle(Self.getAssertion(extensions: extensions).encoded) == [status],
                "\(extensions)")
        }
        let creationCases: [(CBORValue, UInt8)] = [
            (["credProtect": 0], 0x02), (["credProtect": 4], 0x02), (["credProtect": -1], 0x02),
            (["credProtect": .text("3")], 0x11), (["prf": true], 0x11),
            (["prf": ["eval": ["first": .bytes(short)]]], 0x03),
        ]
        for (extensions, status) in creationCases {
            #expect(
                await authenticator.handle(Self.makeCredential(extensions: extensions, userID: [5]).encoded) == [
                    status
                ], "\(extensions)")
        }
        // Unknown extensions are ignored, as CTAP 2.1 §12 says.
        let unknown: CBORValue = ["largeBlob": ["read": true], "hmac-secret": true, "credBlob": .bytes([1])]
        let created = try MakeCredentialResponse(
            responseBytes: await authenticator.handle(Self.makeCredential(extensions: unknown, userID: [6]).encoded))
        #expect(created.unsignedExtensionOutputs == nil && created.authenticatorData.extensions == nil)
        let asserted = try GetAssertionResponse(
            responseBytes: await authenticator.handle(Self.getAssertion(extensions: unknown).encoded))
        #expect(asserted.unsignedExtensionOutputs == nil)
    }

    // MARK: credProtect

    @Test(arguments: [1, 2, 3])
    func credProtectIsStoredAndEchoedInAuthenticatorData(level: Int64) async throws {
        let store = InMemoryPasskeyStore()
        let authenticator = Fixtures.authenticator(store: store)
        let created = try MakeCredentialResponse(
            responseBytes: await authenticator.handle(
                Self.makeCredential(extensions: ["credProtect": .int(level)]).encoded))
        #expect(created.authenticatorData.extensions == .map(["credProtect": .int(level)]))
        #expect(created.authenticatorData.flags.contains(.extensionData))
        #expect(await store.list().first?.credentialProtection?.rawValue == UInt8(level))
        let without = try MakeCredentialResponse(
            responseBytes: await authenticator.handle(Self.makeCredential(extensions: nil, userID: [8]).encoded))
        #expect(
            without.authenticatorData.extensions == nil && !without.authenticatorData.flags.contains(.extensionData))
        #expect(await store.list().first?.credentialProtection == nil)
    }

    /// CTAP 2.1 §12.1, written out case by case: (level, allow list names it, UV) → found.
    static let credProtectMatrix: [(level: Int64?, allowList: Bool, uv: Bool, found: Bool)] = [
        (nil, false, false, true), (nil, false, true, true), (nil, true, false, true), (nil, true, true, true),
        (1, false, false, true), (1, false, true, true), (1, true, false, true), (1, true, true, true),
        (2, false, false, false), (2, false, true, true), (2, true, false, true), (2, true, true, true),
        (3, false, false, false), (3, false, true, true), (3, true, false, false), (3, true, true, true),
    ]

    @Test(arguments: 0..<16)
    func credProtectIsEnforcedOnGetAssertion(row: Int) async throws {
        let (level, allowList, uv, found) = Self.credProtectMatrix[row]
        let user = ScriptedUser()
        let authenticator = Fixtures.authenticator(user: user)
        let extensions: CBORValue? = level.map { ["credProtect": .int($0)] }
        let created = try MakeCredentialResponse(
            responseBytes: await authenticator.handle(Self.makeCredential(extensions: extensions).encoded))
        let id = try #require(created.authenticatorData.attestedCredentialData?.credentialID)
        let request = Self.getAssertion(extensions: nil, uv: uv, allow: allowList ? [id] : nil)
        let bytes = await authenticator.handle(request.encoded)
        if found {
            #expect(try GetAssertionResponse(responseBytes: bytes).credential?.id == id, "row \(row)")
        } else {
            #expect(bytes == [0x2e], "row \(row)")
            // Not found means not offered either: the user was never asked about it.
            #expect(await user.log.filter { $0.hasPrefix("confirm getAssertion") }.isEmpty)
        }
    }

    @Test func credProtectHidesOnlyTheProtectedPasskeyAmongSeveral() async throws {
        let user = ScriptedUser()
        let authenticator = Fixtures.authenticator(user: user)
        for (userID, level) in [([UInt8(1)], Int64(1)), ([2], 2), ([3], 3)] {
            let request = Self.makeCredential(extensions: ["credProtect": .int(level)], userID: userID)
            #expect(await authenticator.handle(request.encoded).first == 0x00)
        }
        // Discoverable without UV: only the level-1 passkey, so no account choice is offered.
        let response = try GetAssertionResponse(
            responseBytes: await authenticator.handle(Self.getAssertion(extensions: nil, uv: false).encoded))
        #expect(response.user?.id == [1])
        #expect(await user.log.contains { $0.hasPrefix("choose") } == false)
        // With UV, all three are offered.
        _ = await authenticator.handle(Self.getAssertion(extensions: nil, uv: true).encoded)
        #expect(await user.offeredAccounts.count == 3)
    }

    @Test func excludeListIgnoresALevel3PasskeyWithoutUserVerification() async throws {
        let store = InMemoryPasskeyStore()
        let authenticator = Fixtures.authenticator(store: store)
        let created = try MakeCredentialResponse(
            responseBytes: await authenticator.handle(
                Self.makeCredential(extensions: ["credProtect": 3], rk: false).encoded))
        let id = try #require(created.authenticatorData.attestedCredentialData?.credentialID)
        let exclude = [PublicKeyCredentialDescriptor(id: id)]
        #expect(
            await authenticator.handle(
                Self.makeCredential(extensions: nil, uv: true, rk: false, excludeList: exclude).encoded) == [0x19])
        #expect(
            await authenticator.handle(
                Self.makeCredential(extensions: nil, uv: false, rk: false, excludeList: exclude).encoded
            ).first == 0x00)
        #expect(await store.list().count == 2)
    }
}
