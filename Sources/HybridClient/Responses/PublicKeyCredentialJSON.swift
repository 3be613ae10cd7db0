import Foundation
import HybridCore

/// `PublicKeyCredential.toJSON()` (WebAuthn L3 §5.1) for a credential reached over hybrid; the
/// `Response` is the attestation (create) or assertion (get) part. Every binary member is unpadded
/// base64url.
public struct PublicKeyCredentialJSON<Response: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
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
    public var json: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Only strings, integers, arrays and nested structs: encoding cannot fail.
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }
}

/// `AuthenticationExtensionsClientOutputsJSON`; always `{}` since no extension is processed.
public struct ClientExtensionResults: Sendable, Hashable, Codable {
    public init() {}
}
