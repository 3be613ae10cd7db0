import Crypto
import Foundation
import HybridAuthenticator
import HybridCTAP
import HybridCore
import Testing

/// The optional `credProtect` and `prfSecret` members of the store file.
@Suite struct FilePasskeyStoreExtensionTests {
    static let secret = [UInt8](repeating: 0x5e, count: 32)

    static func passkey(prfSecret: [UInt8]?, protection: CredentialProtectionPolicy?) -> Passkey {
        Passkey(
            metadata: PasskeyMetadata(
                credentialID: [4, 4], rpID: "example.com", userHandle: [4], userName: "dora",
                createdAt: Fixtures.fixedDate, isDiscoverable: true, credentialProtection: protection),
            privateKey: P256.Signing.PrivateKey(), prfSecret: prfSecret)
    }

    static func document(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: FilePasskeyStoreTests.bytes(path)) as? [String: Any])
    }

    static func write(_ document: [String: Any], to path: String) throws {
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: path))
    }

    @Test(arguments: [false, true])
    func prfSecretAndCredProtectRoundTrip(encrypted: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        let protection: FilePasskeyStore.Protection = encrypted ? .passphrase("pw") : .insecurePlaintext
        try await FilePasskeyStoreTests.open(path, protection).add(
            Self.passkey(prfSecret: Self.secret, protection: .userVerificationRequired))
        let reopened = try FilePasskeyStoreTests.open(path, protection)
        let passkey = try #require(await reopened.passkeys(forRPID: "example.com").first)
        #expect(passkey.prfSecret == Self.secret)
        #expect(passkey.metadata.credentialProtection == .userVerificationRequired)
        let record = try #require((try Self.document(path)["credentials"] as? [[String: Any]])?.first)
        #expect(record["credProtect"] as? Int == 3)
        // Like the private key, the secret is in the file only in plaintext mode.
        let field = try #require(record["prfSecret"] as? String)
        #expect((field == Hex.encode(Self.secret)) == !encrypted)
        #expect(
            String(decoding: try FilePasskeyStoreTests.bytes(path), as: UTF8.self).contains(Hex.encode(Self.secret))
                == !encrypted)
        // A counter update keeps both.
        _ = try await reopened.incrementSignCount(credentialID: [4, 4])
        let again = try #require(
            await FilePasskeyStoreTests.open(path, protection).passkeys(forRPID: "example.com").first)
        #expect(again.prfSecret == Self.secret && again.metadata.credentialProtection == .userVerificationRequired)
    }

    /// A store written before these members existed: no keys at all, read as no prf and level 1.
    @Test(arguments: [false, true])
    func storesWithoutTheMembersStillOpenAndSign(encrypted: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        let protection: FilePasskeyStore.Protection = encrypted ? .passphrase("pw") : .insecurePlaintext
        try await FilePasskeyStoreTests.open(path, protection).add(Self.passkey(prfSecret: nil, protection: nil))
        let record = try #require((try Self.document(path)["credentials"] as? [[String: Any]])?.first)
        #expect(record["prfSecret"] == nil && record["credProtect"] == nil)
        let store = try FilePasskeyStoreTests.open(path, protection)
        let passkey = try #require(await store.passkeys(forRPID: "example.com").first)
        #expect(passkey.prfSecret == nil && passkey.metadata.effectiveCredentialProtection == .userVerificationOptional)
        let authenticator = Fixtures.authenticator(store: store)
        var request = Fixtures.getAssertion(options: CTAPRequestOptions(userVerification: true))
        request.extensions = ["prf": ["eval": ["first": .bytes(Self.secret)]]]
        let response = try GetAssertionResponse(responseBytes: await authenticator.handle(request.encoded))
        #expect(response.credential?.id == [4, 4] && response.unsignedExtensionOutputs == nil)
    }

    /// In an encrypted store the MAC covers the new members like every byte; a plaintext store has
    /// no MAC, so its members are checked one by one.
    @Test(arguments: [true, false])
    func tamperedMembersAreRefused(encrypted: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        let protection: FilePasskeyStore.Protection = encrypted ? .passphrase("pw") : .insecurePlaintext
        try await FilePasskeyStoreTests.open(path, protection).add(
            Self.passkey(prfSecret: Self.secret, protection: .userVerificationOptional))
        let original = try Self.document(path)
        func variant(_ change: (inout [String: Any]) -> Void) throws -> PasskeyStoreError? {
            var document = original
            var records = try #require(document["credentials"] as? [[String: Any]])
            change(&records[0])
            document["credentials"] = records
            try Self.write(document, to: path)
            do {
                _ = try FilePasskeyStore(
                    path: path, protection: protection, newStoreParameters: .insecureFastForTesting)
                return nil
            } catch { return error }
        }
        func isRefused(_ error: PasskeyStoreError?) -> Bool {
            switch error {
            case .authenticationFailed?: encrypted
            case .corrupt?: !encrypted
            default: false
            }
        }
        if encrypted {
            // The private key's box in the prf field: same length, other associated data.
            #expect(isRefused(try variant { $0["prfSecret"] = $0["privateKey"] }))
        }
        for level in [0, 4, 255] {
            #expect(isRefused(try variant { $0["credProtect"] = level }), "credProtect \(level)")
        }
        #expect(isRefused(try variant { $0["prfSecret"] = "zz" }))
        #expect(isRefused(try variant { $0["prfSecret"] = "00" }))
    }
}
