import Crypto
import Foundation
import HybridCore
import Testing

@testable import HybridWallet

/// SD-JWT VC presentations (RFC 9901 §4.3, §7; OpenID4VP 1.0 Appendix A.4 for the audience).
@Suite struct SDJWTPresentationTests {
    static let origin = "https://example.com"

    static func request(_ claims: String, vct: String = "urn:eudi:pid:1") -> [UInt8] {
        Array(
            (#"{"response_type": "vp_token", "response_mode": "dc_api", "nonce": "nonce-1", "dcql_query": {"credentials": [{"id": "pid", "format": "dc+sd-jwt", "meta": {"vct_values": [""#
                + vct + #""]}, "claims": "# + claims + "}]}}").utf8)
    }

    /// The parts of a presentation: issuer JWT, disclosures, KB-JWT.
    static func split(_ presentation: String) -> (jwt: String, disclosures: [String], keyBinding: String) {
        let parts = presentation.split(separator: "~", omittingEmptySubsequences: false).map(String.init)
        return (parts[0], Array(parts[1..<parts.count - 1]), parts[parts.count - 1])
    }

    static func presentation(_ response: [UInt8]) throws -> String {
        let json = try JSONItem.parse(response, limit: 1 << 20)
        return try #require(json["vp_token"]?["pid"]?.arrayValue?.first?.stringValue)
    }

    @Test func revealsOnlyTheAgeDisclosuresAndBindsNonceAndOrigin() throws {
        let key = try TestCredentials.isoDeviceKey()
        let prepared = try WalletPresenter.prepare(
            requestData: Self.request(#"[{"path": ["age_equals_or_over", "18"]}]"#), origin: Self.origin,
            credentials: [TestCredentials.stored(TestCredentials.pid(boundTo: key))])
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        let presentation = try Self.presentation(try WalletPresenter.respond(to: prepared, deviceKey: key, now: now))
        let (_, disclosures, keyBinding) = Self.split(presentation)
        // RFC 9901 §7.3 / OpenID4VP §6.4.1: only what the path needs, nothing else.
        #expect(disclosures == [TestCredentials.ageObject, TestCredentials.over18])

        let jws = keyBinding.split(separator: ".").map(String.init)
        try #require(jws.count == 3)
        let header = try JSONItem.parse(try #require(Base64URL.decode(jws[0])), limit: 4096)
        let payload = try JSONItem.parse(try #require(Base64URL.decode(jws[1])), limit: 4096)
        #expect(header["typ"] == "kb+jwt")
        #expect(header["alg"] == "ES256")
        #expect(payload["aud"] == .string("origin:" + Self.origin))
        #expect(payload["nonce"] == "nonce-1")
        #expect(payload["iat"] == .integer(1_767_225_600))
        let prefix = String(presentation.dropLast(keyBinding.count))
        #expect(payload["sd_hash"] == .string(Base64URL.encode(Array(SHA256.hash(data: Array(prefix.utf8))))))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(jws[2])))
        #expect(key.privateKey.publicKey.isValidSignature(signature, for: Array((jws[0] + "." + jws[1]).utf8)))
    }

    @Test func arrayElementsAndPlainClaims() throws {
        let key = try TestCredentials.isoDeviceKey()
        let credential = try SDJWTCredential(compact: TestCredentials.pid(boundTo: key))
        let all = try #require(credential.select([.key("nationalities"), .allElements]))
        #expect(all.values == [.string("FR")])
        #expect(all.disclosureIndices.map { credential.disclosures[$0].encoded } == [TestCredentials.nationalityFR])
        #expect(credential.select([.key("nationalities"), .index(1)]) == nil)
        let issuer = try #require(credential.select([.key("iss")]))
        #expect(issuer.disclosureIndices.isEmpty)
        // A whole object brings every disclosure inside it (OpenID4VP 1.0 §7.1: the claim with its sub-claims).
        let age = try #require(credential.select([.key("age_equals_or_over")]))
        #expect(age.disclosureIndices.count == 3)
        #expect(age.values == [.object(["18": .bool(true), "65": .bool(false)])])
        // A key applied to a string aborts processing: no claim.
        #expect(credential.select([.key("iss"), .key("x")]) == nil)
        // values (§6.3): the claim counts only with a listed value.
        #expect(credential.select([.key("age_equals_or_over"), .key("65")], values: [.bool(true)]) == nil)
        #expect(credential.select([.key("family_name")], values: ["Möbius"]) != nil)
    }

    @Test func noMatchForAnotherTypeOrAMissingClaim() throws {
        let key = try TestCredentials.isoDeviceKey()
        let stored = [TestCredentials.stored(TestCredentials.pid(boundTo: key))]
        #expect(throws: WalletError.noMatchingCredential) {
            try WalletPresenter.prepare(
                requestData: Self.request(#"[{"path": ["given_name"]}]"#, vct: "urn:other"), origin: Self.origin,
                credentials: stored)
        }
        #expect(throws: WalletError.noMatchingCredential) {
            try WalletPresenter.prepare(
                requestData: Self.request(#"[{"path": ["birth_date"]}]"#), origin: Self.origin, credentials: stored)
        }
    }

    /// A credential bound to another key is never presented with this one.
    @Test func refusesACredentialBoundToAnotherKey() throws {
        let key = try TestCredentials.isoDeviceKey()
        let other = try DeviceKey.generate { _ in Array(repeating: 7, count: 32) }
        let prepared = try WalletPresenter.prepare(
            requestData: Self.request(#"[{"path": ["given_name"]}]"#), origin: Self.origin,
            credentials: [TestCredentials.stored(TestCredentials.pid(boundTo: other))])
        #expect(throws: WalletError.self) { try WalletPresenter.respond(to: prepared, deviceKey: key, now: Date()) }
    }

    @Test func refusesMalformedCredentials() throws {
        let key = try TestCredentials.isoDeviceKey()
        let good = TestCredentials.pid(boundTo: key)
        // An unreferenced disclosure (RFC 9901 §7.1 step 3.4 rejects it).
        #expect(throws: WalletError.self) {
            try SDJWTCredential(compact: good + TestCredentials.disclosure(#"["s", "x", 1]"#) + "~")
        }
        // A repeated disclosure.
        #expect(throws: WalletError.self) { try SDJWTCredential(compact: good + TestCredentials.over18 + "~") }
        // With a key-binding JWT already, or without the final ~.
        #expect(throws: WalletError.self) { try SDJWTCredential(compact: String(good.dropLast())) }
        #expect(throws: WalletError.self) { try SDJWTCredential(compact: "not.a.jwt~") }
    }
}
