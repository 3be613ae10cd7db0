import HybridCore

/// A credential's protection level, CTAP 2.1 §12.1 (`credProtect`). The raw value is the CTAP
/// `credProtect` byte; ``webAuthnName`` is the WebAuthn `credentialProtectionPolicy` string. The one
/// type both sides use: the client maps a site's policy to the byte, the phone stores it with the passkey.
public enum CredentialProtectionPolicy: UInt8, Hashable, Sendable, CaseIterable {
    /// userVerificationOptional (0x01): FIDO 2.0 behaviour, and the level of a passkey made
    /// without the extension.
    case userVerificationOptional = 1
    /// userVerificationOptionalWithCredentialIDList (0x02): without user verification the
    /// passkey is found only through an allow list that names it.
    case userVerificationOptionalWithCredentialIDList = 2
    /// userVerificationRequired (0x03): never found without user verification.
    case userVerificationRequired = 3

    /// The WebAuthn name of the policy (the `credentialProtectionPolicy` extension input).
    public var webAuthnName: String {
        switch self {
        case .userVerificationOptional: "userVerificationOptional"
        case .userVerificationOptionalWithCredentialIDList: "userVerificationOptionalWithCredentialIDList"
        case .userVerificationRequired: "userVerificationRequired"
        }
    }

    /// The policy with this WebAuthn name, or `nil` for any other text (WebIDL enumerations ignore
    /// unknown values).
    public init?(webAuthnName: String) {
        guard let policy = Self.allCases.first(where: { $0.webAuthnName == webAuthnName }) else { return nil }
        self = policy
    }
}
