import Testing

@testable import HybridWallet

/// The unsigned DC API request (OpenID4VP 1.0 Appendix A.2, A.3.1): what is accepted, and the
/// typed refusal of everything else.
@Suite struct OpenID4VPRequestTests {
    static let query =
        #"{"credentials": [{"id": "pid", "format": "dc+sd-jwt", "meta": {"vct_values": ["urn:eudi:pid:1"]}, "claims": [{"path": ["age_equals_or_over", "18"]}]}]}"#

    static func request(_ members: String) -> [UInt8] { Array("{\(members)}".utf8) }

    static let valid =
        #""response_type": "vp_token", "response_mode": "dc_api", "nonce": "n-0S6_WzA2Mj", "client_metadata": {}, "dcql_query": "#
        + query

    @Test func parsesTheAppendixAShape() throws {
        let request = try OpenID4VPRequest(data: Self.request(Self.valid))
        #expect(request.nonce == "n-0S6_WzA2Mj")
        #expect(request.query.credentials.map(\.id) == ["pid"])
        #expect(request.query.credentials.first?.claims?.first?.path == [.key("age_equals_or_over"), .key("18")])
    }

    /// Appendix A.2: the wallet ignores client_id and expected_origins in an unsigned request.
    @Test func ignoresClientIDAndExpectedOrigins() throws {
        let request = try OpenID4VPRequest(
            data: Self.request(
                Self.valid
                    + #", "client_id": "x509_san_dns:evil.example", "expected_origins": ["https://evil.example"]"#))
        #expect(request.nonce == "n-0S6_WzA2Mj")
    }

    @Test(arguments: [
        (#""response_type": "vp_token", "response_mode": "dc_api", "dcql_query": "# + query, "no nonce"),
        (
            #""response_type": "vp_token", "response_mode": "dc_api", "nonce": "", "dcql_query": "# + query,
            "empty nonce"
        ),
        (#""response_type": "code", "response_mode": "dc_api", "nonce": "n", "dcql_query": "# + query, "response_type"),
        (
            #""response_type": "vp_token", "response_mode": "direct_post", "nonce": "n", "dcql_query": "# + query,
            "direct_post"
        ),
        (#""response_type": "vp_token", "response_mode": "dc_api", "nonce": "n""#, "no dcql_query"),
        (
            #""response_type": "vp_token", "response_mode": "dc_api", "nonce": "n", "nonce": "m", "dcql_query": "#
                + query, "nonce twice"
        ),
        (
            #""response_type": "vp_token", "response_mode": "dc_api", "nonce": "n", "dcql_query": {"credentials": []}"#,
            "no credentials"
        ),
        (
            #""response_type": "vp_token", "response_mode": "dc_api", "nonce": "n", "dcql_query": {"credentials": [{"id": "a b", "format": "dc+sd-jwt", "meta": {"vct_values": ["x"]}}]}"#,
            "bad id"
        ),
        (
            #""response_type": "vp_token", "response_mode": "dc_api", "nonce": "n", "dcql_query": {"credentials": [{"id": "a", "format": "dc+sd-jwt", "meta": {"vct_values": ["x"]}, "claims": [{"path": [-1]}]}]}"#,
            "negative index"
        ),
        (
            #""response_type": "vp_token", "response_mode": "dc_api", "nonce": "n", "dcql_query": {"credentials": [{"id": "a", "format": "dc+sd-jwt", "meta": {}}]}"#,
            "no vct_values"
        ),
    ])
    func refusesMalformed(members: String, label: String) {
        #expect(throws: WalletError.self, "\(label)") { try OpenID4VPRequest(data: Self.request(members)) }
        do {
            _ = try OpenID4VPRequest(data: Self.request(members))
        } catch {
            guard case .malformedRequest = error else {
                Issue.record("\(label): \(error) is not malformedRequest")
                return
            }
        }
    }

    @Test(arguments: [
        (#""request": "eyJ...""#, "signed request (request)"),
        (Self.valid + #", "transaction_data": ["e30"]"#, "transaction_data"),
        (
            #""response_type": "vp_token", "response_mode": "dc_api.jwt", "nonce": "n", "dcql_query": "# + query,
            "response_mode dc_api.jwt (encrypted response)"
        ),
        (
            #""response_type": "vp_token", "response_mode": "dc_api", "nonce": "n", "presentation_definition": {}"#,
            "presentation_definition"
        ),
        (
            #""response_type": "vp_token", "response_mode": "dc_api", "nonce": "n", "dcql_query": {"credentials": [{"id": "a", "format": "dc+sd-jwt", "meta": {"vct_values": ["x"]}, "trusted_authorities": [{"type": "aki", "values": ["x"]}]}]}"#,
            "trusted_authorities"
        ),
    ])
    func refusesUnsupported(members: String, feature: String) {
        #expect(throws: WalletError.unsupported(feature)) { try OpenID4VPRequest(data: Self.request(members)) }
    }

    @Test func refusesOversizedAndNonObjectData() {
        let padding = String(repeating: " ", count: OpenID4VPRequest.maximumSize)
        #expect(throws: WalletError.self) { try OpenID4VPRequest(data: Self.request(Self.valid + padding)) }
        #expect(throws: WalletError.self) { try OpenID4VPRequest(data: Array("[]".utf8)) }
        #expect(throws: WalletError.self) { try OpenID4VPRequest(data: Array("{".utf8)) }
        #expect(throws: WalletError.self) { try OpenID4VPRequest(data: Array(String(repeating: "[", count: 40).utf8)) }
    }

    /// The DCQL examples of OpenID4VP 1.0 §6 and Appendix D parse.
    @Test(arguments: [
        "dcql-simple.json", "dcql-claims_alternatives.json", "dcql-credentials_alternatives.json",
        "dcql-simple_mdoc.json", "dcql-value_matching_simple.json",
    ])
    func parsesSpecificationExamples(file: String) throws {
        let query = try DCQLQuery(json: try WalletVectors.json(file))
        #expect(!query.credentials.isEmpty)
    }
}
