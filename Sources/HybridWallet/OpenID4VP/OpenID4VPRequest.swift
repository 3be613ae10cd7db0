/// An unsigned OpenID4VP request over the Digital Credentials API: the `data` of a request whose
/// protocol is `openid4vp-v1-unsigned` (OpenID4VP 1.0 Appendix A.2, A.3.1).
///
/// ```json
/// {"response_type": "vp_token", "response_mode": "dc_api", "nonce": "n-0S6_WzA2Mj",
///  "client_metadata": {…}, "dcql_query": {…}}
/// ```
///
/// The parser is strict about what it uses and ignores the rest, as Appendix A.2 says:
/// - `response_type` must be `vp_token`; `response_mode` must be `dc_api` (`dc_api.jwt`, an
///   encrypted response, is ``WalletError/unsupported(_:)``);
/// - `nonce` is a non-empty string of at most ``maximumNonceLength`` characters;
/// - `dcql_query` is required (a `presentation_definition`, the pre-1.0 query language, is unsupported);
/// - `request` (a signed request's JWS) and `transaction_data` are unsupported: this wallet cannot
///   honour them, and answering as if they were absent would be wrong;
/// - `client_id` and `expected_origins` are ignored, as the appendix requires for unsigned requests:
///   the verifier is identified by the origin the browser asserts.
package struct OpenID4VPRequest: Hashable, Sendable {
    /// The protocol identifier of an unsigned request (OpenID4VP 1.0 Appendix A.1).
    package static let unsignedProtocolID = "openid4vp-v1-unsigned"
    /// Largest request data accepted, in bytes.
    package static let maximumSize = 64 << 10
    /// Longest nonce accepted, in characters.
    package static let maximumNonceLength = 512

    /// The verifier's nonce, bound into every presentation.
    package let nonce: String
    /// The query.
    package let query: DCQLQuery

    /// Parses request `data` (UTF-8 JSON).
    /// - Throws: ``WalletError/malformedRequest(_:)`` or ``WalletError/unsupported(_:)``.
    package init(data: [UInt8]) throws(WalletError) {
        let json: JSONItem
        do {
            json = try JSONItem.parse(data, limit: Self.maximumSize)
        } catch {
            throw .malformedRequest("request data: \(error)")
        }
        guard let members = json.objectValue else { throw .malformedRequest("request data is not an object") }
        if members["request"] != nil { throw .unsupported("signed request (request)") }
        if members["transaction_data"] != nil { throw .unsupported("transaction_data") }
        guard members["response_type"] == .string("vp_token") else {
            throw .malformedRequest("response_type is not vp_token")
        }
        switch members["response_mode"] {
        case .string("dc_api"): break
        case .string("dc_api.jwt"): throw .unsupported("response_mode dc_api.jwt (encrypted response)")
        default: throw .malformedRequest("response_mode is not dc_api")
        }
        guard let nonce = members["nonce"]?.stringValue, !nonce.isEmpty, nonce.count <= Self.maximumNonceLength
        else { throw .malformedRequest("nonce is missing, empty or longer than \(Self.maximumNonceLength)") }
        if let metadata = members["client_metadata"], metadata.objectValue == nil {
            throw .malformedRequest("client_metadata is not an object")
        }
        guard let query = members["dcql_query"] else {
            if members["presentation_definition"] != nil { throw .unsupported("presentation_definition") }
            throw .malformedRequest("dcql_query is missing")
        }
        self.nonce = nonce
        self.query = try DCQLQuery(json: query)
    }
}
