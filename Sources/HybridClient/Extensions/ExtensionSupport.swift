import HybridCTAP
import HybridCore

/// What the phone's getInfo says about extensions (Chromium's `AuthenticatorSupportedOptions`).
/// Only the listed extensions count: with no getInfo, no extension is assumed.
struct ExtensionSupport: Sendable, Hashable {
    var prf: Bool
    /// `hmac-secret`, usable only with a PIN/UV auth protocol (Chromium needs one to encrypt salts).
    var hmacSecret: Bool
    var credProtect: Bool
    /// The `largeBlob` extension (as iOS lists it), not the `largeBlobKey` + authenticatorLargeBlobs way.
    var largeBlob: Bool

    init(_ info: AuthenticatorGetInfoResponse?) {
        let listed = Set(info?.extensions ?? [])
        prf = listed.contains("prf")
        hmacSecret = listed.contains("hmac-secret") && !(info?.pinUvAuthProtocols ?? []).isEmpty
        credProtect = listed.contains("credProtect")
        largeBlob = listed.contains("largeBlob")
    }
}

extension UserVerificationRequirement {
    /// Chromium's `AtLeastUVPreferred`: PRF results exist only for verified users, so a PRF request
    /// asks for UV where the authenticator has it.
    var atLeastPreferred: Self { self == .discouraged ? .preferred : self }
}

/// Why a request cannot go to this phone (checked after the handshake, with the phone's getInfo).
public enum ClientExtensionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `enforceCredentialProtectionPolicy` is set but the phone does not list `credProtect`.
    case credentialProtectionUnsupported
    /// `largeBlob.support: "required"` but the phone does not support it, or no resident key is made.
    case largeBlobUnsupported

    /// One line for a user.
    public var description: String {
        switch self {
        case .credentialProtectionUnsupported:
            "the site requires a credential protection policy the phone cannot enforce (no credProtect)"
        case .largeBlobUnsupported: "the site requires large blob support, which the phone does not offer here"
        }
    }
}
