/// The credential a phone presented for a ``DigitalCredentialRequest``: what the page's
/// `DigitalCredential` carries (`protocol`, `data`).
public struct DigitalCredential: Sendable, Hashable {
    /// The protocol of the request entry it answers; `nil` when the phone used the legacy answer
    /// shape that names none (the page then sees the protocol of the request).
    public let protocolID: String?
    /// The response data as compact UTF-8 JSON (for OpenID4VP an object with `vp_token`).
    public let data: [UInt8]
}
