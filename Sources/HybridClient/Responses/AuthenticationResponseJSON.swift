import Foundation
import HybridCore

/// `AuthenticationResponseJSON` (WebAuthn L3 §5.1, `PublicKeyCredential.toJSON()` after `get()`),
/// with every binary member in unpadded base64url.
public struct AuthenticationResponseJSON: Sendable, Hashable, Codable {
    /// `AuthenticatorAssertionResponseJSON`.
    public struct Response: Sendable, Hashable, Codable {
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

    public var id: String
    public var rawId: String
    public var response: Response
    public var authenticatorAttachment: String
    public var clientExtensionResults: ClientExtensionResults
    public var type: String

    /// A response for a credential reached over hybrid: `cross-platform`, no extension results.
    public init(credentialID: [UInt8], response: Response) {
        self.id = Base64URL.encode(credentialID)
        self.rawId = id
        self.response = response
        self.authenticatorAttachment = AuthenticatorAttachment.crossPlatform.rawValue
        self.clientExtensionResults = ClientExtensionResults()
        self.type = "public-key"
    }

    /// Stable JSON: keys sorted, `/` not escaped, no white space.
    public var json: Data { WebAuthnResponseEncoding.encode(self) }
}
