import HybridCore

/// A Digital Credentials API request as a page passes it to `navigator.credentials.get({digital})`
/// (W3C Digital Credentials API): `{"requests": [{"protocol": …, "data": {…}}, …]}`, or the whole
/// options object `{"digital": {"requests": …}}`.
public struct DigitalCredentialRequest: Sendable, Hashable {
    /// The `digital` member as read.
    let digital: JSONNode

    /// Reads and checks the request: bounded, strict JSON with a non-empty `requests` array of
    /// entries with a string `protocol` and an object `data` (a string in the legacy format).
    ///
    /// - Throws: `DigitalCredentialEnvelopeError` (HybridCore) when the JSON is not a Digital Credentials request.
    public init(json: some Collection<UInt8>) throws(DigitalCredentialEnvelopeError) {
        let top = try JSONNode(parsing: json)
        let digital = top[member: "requests"] == nil ? top[member: "digital"] ?? top : top
        _ = try DigitalCredentialRequestEnvelope(origin: "", digital: digital)
        self.digital = digital
    }
}
