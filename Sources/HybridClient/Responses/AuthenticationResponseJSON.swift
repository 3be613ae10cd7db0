/// `AuthenticationResponseJSON` (WebAuthn L3 §5.1, `PublicKeyCredential.toJSON()` after `get()`).
public typealias AuthenticationResponseJSON = PublicKeyCredentialJSON<AuthenticatorAssertionResponseJSON>

/// `AuthenticatorAssertionResponseJSON`, binary members in unpadded base64url.
public struct AuthenticatorAssertionResponseJSON: Sendable, Hashable, Codable {
    /// The client data JSON the signature covers, base64url.
    public var clientDataJSON: String
    /// The authenticator data, base64url.
    public var authenticatorData: String
    /// The assertion signature (DER ECDSA), base64url.
    public var signature: String
    /// Absent when the authenticator returned no user handle.
    public var userHandle: String?

    /// A response from its base64url members.
    package init(clientDataJSON: String, authenticatorData: String, signature: String, userHandle: String?) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}
