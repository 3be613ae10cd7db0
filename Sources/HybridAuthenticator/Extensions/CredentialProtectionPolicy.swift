import HybridCTAP
import HybridCore

extension CredentialProtectionPolicy {
    /// Whether getAssertion may find a passkey with this policy, CTAP 2.1 §6.2.2 step 7 (locate
    /// credentials): a request `verified` by user verification finds every level; without it,
    /// level 3 is never found and level 2 only through an allow list (`discoverable` is false).
    package func isFound(verified: Bool, discoverable: Bool) -> Bool {
        switch self {
        case .userVerificationOptional: true
        case .userVerificationOptionalWithCredentialIDList: verified || !discoverable
        case .userVerificationRequired: verified
        }
    }
}
