/// `AuthenticationResponseJSON` (WebAuthn L3 §5.1, `PublicKeyCredential.toJSON()` after `get()`).
public typealias AuthenticationResponseJSON = PublicKeyCredentialJSON<AuthenticatorAssertionResponseJSON>

/// `AuthenticatorAssertionResponseJSON`, binary members in unpadded base64url.
public struct AuthenticatorAssertionResponseJSON: Sendable, Hashable, Codable {
    public var clientDataJSON: String
    public var authenticatorData: String
    public var signature: String
    /// Absent when the authenticator returned no user handle.
    public var userHandle: String?

    public init(clientDataJSON: String, authenticatorData: String, signature: String, userHandle: String?) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}
