import Foundation
import Testing

@testable import HybridWallet

/// DCQL selection rules (OpenID4VP 1.0 §6.4) over stored credentials.
@Suite struct DCQLEvaluatorTests {
    static func credentials() throws -> [WalletCredential] {
        let key = try TestCredentials.isoDeviceKey()
        return [
            TestCredentials.stored(
                TestCredentials.pid(boundTo: key, vct: "https://credentials.example.com/identity_credential"), id: "pid"
            ),
            try TestCredentials.isoMdoc(),
        ]
    }

    /// §6.4.1: claim_sets: the first satisfiable option, and only its claims.
    @Test func claimSetsTakeTheFirstSatisfiableOption() throws {
        let query = try DCQLQuery(
            text:
                #"{"credentials": [{"id": "pid", "format": "dc+sd-jwt", "meta": {"vct_values": ["https://credentials.example.com/identity_credential"]}, "claims": [{"id": "a", "path": ["family_name"]}, {"id": "b", "path": ["postal_code"]}, {"id": "c", "path": ["given_name"]}], "claim_sets": [["a", "b"], ["a", "c"]]}]}"#
        )
        let matches = try DCQLEvaluator.evaluate(query, credentials: Self.credentials())
        #expect(matches.map(\.queryID) == ["pid"])
        #expect(matches.first?.claims.compactMap(\.id) == ["a", "c"])
    }

    /// §6.4.2: the specification's credentials_alternatives example: the required set is answered
    /// by its first satisfiable option; the optional set adds nothing.
    @Test func credentialSetsFromTheSpecificationExample() throws {
        let query = try DCQLQuery(json: try WalletVectors.json("dcql-credentials_alternatives.json"))
        // The stored PID lacks address.street_address, so option ["pid"] fails; none of the others match either.
        #expect(throws: WalletError.noMatchingCredential) {
            try DCQLEvaluator.evaluate(query, credentials: Self.credentials())
        }
        let relaxed = try DCQLQuery(
            text:
                #"{"credentials": [{"id": "pid", "format": "dc+sd-jwt", "meta": {"vct_values": ["https://credentials.example.com/identity_credential"]}, "claims": [{"path": ["given_name"]}]}, {"id": "mdl", "format": "mso_mdoc", "meta": {"doctype_value": "org.iso.18013.5.1.mDL"}, "claims": [{"path": ["org.iso.18013.5.1", "family_name"]}]}, {"id": "other", "format": "dc+sd-jwt", "meta": {"vct_values": ["urn:other"]}}], "credential_sets": [{"options": [["other"], ["mdl"]]}, {"required": false, "options": [["pid"]]}]}"#
        )
        let matches = try DCQLEvaluator.evaluate(relaxed, credentials: Self.credentials())
        #expect(matches.map(\.queryID) == ["mdl"])
        #expect(matches.map(\.credentialID) == ["m1"])
    }

    /// Without credential_sets every credential query must match, or nothing is returned.
    @Test func allOrNothingWithoutCredentialSets() throws {
        let query = try DCQLQuery(
            text:
                #"{"credentials": [{"id": "mdl", "format": "mso_mdoc", "meta": {"doctype_value": "org.iso.18013.5.1.mDL"}}, {"id": "x", "format": "mso_mdoc", "meta": {"doctype_value": "org.iso.7367.1.mVRC"}}]}"#
        )
        #expect(throws: WalletError.noMatchingCredential) {
            try DCQLEvaluator.evaluate(query, credentials: Self.credentials())
        }
    }

    /// An unreadable stored credential is skipped, not an error that would tell the verifier something.
    @Test func skipsUnreadableCredentials() throws {
        let broken = WalletCredential(id: "bad", format: .sdJWTVC, bytes: Array("x~".utf8), addedAt: Date())
        let query = try DCQLQuery(
            text:
                #"{"credentials": [{"id": "mdl", "format": "mso_mdoc", "meta": {"doctype_value": "org.iso.18013.5.1.mDL"}, "claims": [{"path": ["org.iso.18013.5.1", "family_name"], "values": ["Doe"]}]}]}"#
        )
        let matches = try DCQLEvaluator.evaluate(query, credentials: [broken] + Self.credentials())
        #expect(matches.map(\.credentialID) == ["m1"])
    }

    @Test func consentTextNamesOriginClaimsAndCredential() throws {
        let key = try TestCredentials.isoDeviceKey()
        let prepared = try WalletPresenter.prepare(
            requestData: SDJWTPresentationTests.request(#"[{"path": ["age_equals_or_over", "18"]}]"#),
            origin: "https://example.com", credentials: [TestCredentials.stored(TestCredentials.pid(boundTo: key))])
        #expect(
            prepared.consent.text
                == "https://example.com asks for: age over 18, device key, issuer, credential type, from your PID.")
        #expect(
            ConsentRequest.claimName([.key("org.iso.18013.5.1"), .key("family_name")]) == "family name")
        #expect(ConsentRequest.claimName([.key("address"), .key("street_address")]) == "street address (address)")
        #expect(ConsentRequest.credentialName("org.iso.18013.5.1.mDL") == "mobile driving licence")
    }
}
