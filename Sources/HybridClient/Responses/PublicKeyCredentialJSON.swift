import Foundation
import HybridCore

/// `PublicKeyCredential.toJSON()` (WebAuthn L3 §5.1) for a credential reached over hybrid; the
/// `Response` is the attestation (create) or assertion (get) part. Every binary member is unpadded
/// base64url.
public struct PublicKeyCredentialJSON<Response: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    /// The credential ID, base64url.
    public var id: String
    /// The credential ID, base64url (the same as ``id``).
    public var rawId: String
    /// The authenticator's response.
    public var response: Response
    /// `cross-platform`: a phone over hybrid.
    public var authenticatorAttachment: String
    /// The extension outputs.
    public var clientExtensionResults: ClientExtensionResults
    /// `public-key`.
    public var type: String

    /// A response for a credential reached over hybrid: `cross-platform`.
    package init(credentialID: [UInt8], response: Response, clientExtensionResults: ClientExtensionResults = .init()) {
        self.id = Base64URL.encode(credentialID)
        self.rawId = id
        self.response = response
        self.authenticatorAttachment = AuthenticatorAttachment.crossPlatform.rawValue
        self.clientExtensionResults = clientExtensionResults
        self.type = "public-key"
    }

    /// Stable JSON: keys sorted, `/` not escaped, no white space.
    public var json: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Only strings, integers, booleans, arrays and nested structs: encoding cannot fail.
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }
}

/// `AuthenticationExtensionsClientOutputsJSON` (WebAuthn L3): only the extensions that were
/// requested appear; binary members are unpadded base64url.
public struct ClientExtensionResults: Sendable, Hashable, Codable {
    /// `prf`: `enabled` after `create()`, `results` when the PRF was evaluated.
    public struct PRF: Sendable, Hashable, Codable {
        /// Whether prf is enabled for the credential (at creation).
        public var enabled: Bool?
        /// The prf outputs, if evaluated.
        public var results: Results?

        /// `AuthenticationExtensionsPRFValuesJSON`.
        public struct Results: Sendable, Hashable, Codable {
            /// The first output, base64url.
            public var first: String
            /// The second output, base64url, if a second input was given.
            public var second: String?
        }

        /// prf outputs; `nil` leaves a member out.
        package init(enabled: Bool? = nil, results: PRFValues? = nil) {
            self.enabled = enabled
            self.results = results.map {
                Results(first: Base64URL.encode($0.first), second: $0.second.map { Base64URL.encode($0) })
            }
        }
    }

    /// `credProps`.
    public struct CredentialProperties: Sendable, Hashable, Codable {
        /// Whether the credential is a resident (discoverable) key.
        public var rk: Bool?
    }

    /// `largeBlob`: `supported` after `create()`, `blob` after a read, `written` after a write.
    public struct LargeBlob: Sendable, Hashable, Codable {
        /// Whether the credential supports largeBlob (at creation).
        public var supported: Bool?
        /// The blob read, base64url.
        public var blob: String?
        /// Whether the write succeeded.
        public var written: Bool?

        /// largeBlob outputs; `nil` leaves a member out.
        package init(supported: Bool? = nil, blob: [UInt8]? = nil, written: Bool? = nil) {
            self.supported = supported
            self.blob = blob.map { Base64URL.encode($0) }
            self.written = written
        }
    }

    /// prf outputs.
    public var prf: PRF?
    /// credProps output (`rk`).
    public var credProps: CredentialProperties?
    /// largeBlob outputs.
    public var largeBlob: LargeBlob?

    /// Extension outputs; `nil` leaves one out.
    package init(prf: PRF? = nil, credProps: CredentialProperties? = nil, largeBlob: LargeBlob? = nil) {
        self.prf = prf
        self.credProps = credProps
        self.largeBlob = largeBlob
    }
}
