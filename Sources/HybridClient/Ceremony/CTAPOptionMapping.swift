import HybridCTAP
import HybridCore

/// How WebAuthn requirements become CTAP2 `options` (Chromium's rules).
///
/// - `uv` is `true` when user verification is `required`, or `preferred` and the authenticator can
///   verify users (getInfo `uv: true`; assumed when getInfo is unknown, since every phone reports it,
///   protocol.md §8.3). It is never sent as `false`. As in Chromium, user verification is required
///   for a discoverable sign-in (empty allow list) and for a registration that makes a resident key.
/// - `rk` is `true` when a resident key is `required`, or `preferred` and the authenticator supports
///   them and can verify users (getInfo `rk: true` and `uv: true`; assumed when unknown).
/// - `up` is never set: the default (`true`) is what we want, and `up: false` would be a silent
///   preflight probe, which Android shows as UI and which burns the session (protocol.md §8.1).
enum CTAPOptionMapping {
    static func userVerification(
        _ requirement: UserVerificationRequirement,
        authenticatorInfo: AuthenticatorGetInfoResponse?
    ) -> Bool? {
        switch requirement {
        case .required: true
        case .preferred: supports("uv", authenticatorInfo) ? true : nil
        case .discouraged: nil
        }
    }

    /// Chromium's `SetUVForDiscoverableRequests`: an external authenticator must verify the user
    /// when it chooses the account itself.
    static func assertionRequirement(
        _ requirement: UserVerificationRequirement, allowListIsEmpty: Bool
    ) -> UserVerificationRequirement {
        allowListIsEmpty ? .required : requirement
    }

    /// Chromium's `upgrade_uv` in makeCredential: a resident key on an external authenticator
    /// needs user verification.
    static func registrationRequirement(
        _ requirement: UserVerificationRequirement, residentKey: Bool?
    ) -> UserVerificationRequirement {
        residentKey == true ? .required : requirement
    }

    static func residentKey(
        _ requirement: ResidentKeyRequirement,
        authenticatorInfo: AuthenticatorGetInfoResponse?
    ) -> Bool? {
        switch requirement {
        case .required: true
        case .preferred: supports("rk", authenticatorInfo) && supports("uv", authenticatorInfo) ? true : nil
        case .discouraged: nil
        }
    }

    /// Whether getInfo reports `option` as `true`; assumed when getInfo is unknown (a phone).
    private static func supports(_ option: String, _ info: AuthenticatorGetInfoResponse?) -> Bool {
        guard let info else { return true }
        return info.options?[option] == true
    }

    /// The options map, or `nil` (key omitted) when nothing is set.
    static func options(residentKey: Bool?, userVerification: Bool?) -> CTAPRequestOptions? {
        let options = CTAPRequestOptions(residentKey: residentKey, userVerification: userVerification)
        return options.isEmpty ? nil : options
    }

    /// Descriptors as sent to a phone: `public-key` only, without `transports` (iOS rejects
    /// descriptors carrying `transports: ["usb"]`, protocol.md §10.5); `nil` when empty (key omitted).
    static func descriptors(_ list: [PublicKeyCredentialDescriptorJSON]) -> [PublicKeyCredentialDescriptor]? {
        let mapped = list.filter { $0.type == PublicKeyCredentialDescriptor.publicKeyType }
            .map { PublicKeyCredentialDescriptor(type: $0.type, id: $0.id, transports: nil) }
        return mapped.isEmpty ? nil : mapped
    }
}
