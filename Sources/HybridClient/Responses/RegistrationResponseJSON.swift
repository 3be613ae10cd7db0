/// `RegistrationResponseJSON` (WebAuthn L3 §5.1, `PublicKeyCredential.toJSON()` after `create()`).
public typealias RegistrationResponseJSON = PublicKeyCredentialJSON<AuthenticatorAttestationResponseJSON>

/// `AuthenticatorAttestationResponseJSON`, binary members in unpadded base64url.
public struct AuthenticatorAttestationResponseJSON: Sendable, Hashable, Codable {
    /// The client data JSON the signature covers, base64url.
    public var clientDataJSON: String
    /// The CBOR attestation object, base64url.
    public var attestationObject: String
    /// The authenticator data, base64url.
    public var authenticatorData: String
    /// Always `["hybrid"]` here.
    public var transports: [String]
    /// The credential key as DER SubjectPublicKeyInfo; absent for algorithms this client cannot
    /// convert (anything but ES256).
    public var publicKey: String?
    /// COSE algorithm of the credential key (-7 for ES256).
    public var publicKeyAlgorithm: Int64

    /// A response from its base64url members.
    package init(
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
