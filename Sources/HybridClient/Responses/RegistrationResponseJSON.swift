import Foundation
import HybridCore

/// `RegistrationResponseJSON` (WebAuthn L3 §5.1, `PublicKeyCredential.toJSON()` after `create()`),
/// with every binary member in unpadded base64url.
public struct RegistrationResponseJSON: Sendable, Hashable, Codable {
    /// `AuthenticatorAttestationResponseJSON`.
    public struct Response: Sendable, Hashable, Codable {
        public var clientDataJSON: String
        public var attestationObject: String
        public var authenticatorData: String
        /// Always `["hybrid"]` here.
        public var transports: [String]
        /// The credential key as DER SubjectPublicKeyInfo; absent for algorithms this client cannot
        /// convert (anything but ES256).
        public var publicKey: String?
        /// COSE algorithm of the credential key (-7 for ES256).
        public var publicKeyAlgorithm: Int64

        public init(
            clientDataJSON: String,
            attestationObject: String,
            authenticatorData: String,
            transports: [String],
            publicKey: String?,
            publicKeyAlgorithm: Int64
        ) {
            self.clientDataJSON = clientDataJSON
            self.attestationObject = attestationObject
            self.authenticatorData = authenticatorData
            self.transports = transports
            self.publicKey = publicKey
            self.publicKeyAlgorithm = publicKeyAlgorithm
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

/// `AuthenticationExtensionsClientOutputsJSON`; always `{}` since no extension is processed.
public struct ClientExtensionResults: Sendable, Hashable, Codable {
    public init() {}
}

/// The one JSON encoder configuration for responses.
enum WebAuthnResponseEncoding {
    static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Only strings, integers, arrays and nested structs: encoding cannot fail.
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }
}
