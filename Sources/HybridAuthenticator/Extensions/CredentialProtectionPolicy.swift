/// A credential's protection level, CTAP 2.1 §12.1 (`credProtect`), stored with the passkey.
public enum CredentialProtectionPolicy: UInt8, Hashable, Sendable, CaseIterable {
    /// userVerificationOptional (0x01): FIDO 2.0 behaviour, and the level of a passkey made
    /// without the extension.
    case userVerificationOptional = 1
    /// userVerificationOptionalWithCredentialIDList (0x02): without user verification the
    /// passkey is found only through an allow list that names it.
    case userVerificationOptionalWithCredentialIDList = 2
    /// userVerificationRequired (0x03): never found without user verification.
    case userVerificationRequired = 3

    /// Whether getAssertion may find a passkey with this policy, CTAP 2.1 §6.2.2 step 7 (locate
    /// credentials): a request `verified` by user verification finds every level; without it,
    /// level 3 is never found and level 2 only through an allow list (`discoverable` is false).
    public func isFound(verified: Bool, discoverable: Bool) -> Bool {
        switch self {
        case .userVerificationOptional: true
        case .userVerificationOptionalWithCredentialIDList: verified || !discoverable
        case .userVerificationRequired: verified
        }
    }
}
