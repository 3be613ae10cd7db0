/// WebAuthn L3 enumerations that appear in the options JSON. The JSON carries them as plain strings;
/// a value this client does not know is ignored, as the specification asks of clients.

/// `ResidentKeyRequirement` (WebAuthn L3 §5.4.6): whether a discoverable credential is wanted.
public enum ResidentKeyRequirement: String, Sendable, Hashable, CaseIterable {
    case discouraged
    case preferred
    case required
}

/// `UserVerificationRequirement` (WebAuthn L3 §5.8.6).
public enum UserVerificationRequirement: String, Sendable, Hashable, CaseIterable {
    case required
    case preferred
    case discouraged
}

/// `AttestationConveyancePreference` (WebAuthn L3 §5.4.7).
public enum AttestationConveyancePreference: String, Sendable, Hashable, CaseIterable {
    case none
    case indirect
    case direct
    case enterprise
}

/// `AuthenticatorAttachment` (WebAuthn L3 §5.4.5).
public enum AuthenticatorAttachment: String, Sendable, Hashable, CaseIterable {
    case platform
    case crossPlatform = "cross-platform"
}

/// `PublicKeyCredentialHint` (WebAuthn L3 §5.8.7).
public enum PublicKeyCredentialHint: String, Sendable, Hashable, CaseIterable {
    case securityKey = "security-key"
    case clientDevice = "client-device"
    case hybrid
}

/// `AuthenticatorTransport` (WebAuthn L3 §5.8.4). Unknown strings are dropped when parsing.
public enum AuthenticatorTransport: String, Sendable, Hashable, CaseIterable {
    case usb
    case nfc
    case ble
    case smartCard = "smart-card"
    case hybrid
    case `internal`
}
