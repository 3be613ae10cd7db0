import Crypto
import Foundation
import HybridCTAP
import HybridCore

/// What the store knows about a passkey apart from its private key. Nothing here is secret,
/// and `hybrid-authenticator credentials list` shows it without unlocking the store.
public struct PasskeyMetadata: Hashable, Sendable {
    /// The credential ID (random, ``Passkey/credentialIDLength`` bytes for passkeys made here).
    public let credentialID: [UInt8]
    /// The relying party ID the passkey is for.
    public let rpID: String
    /// The relying party's name at creation, if it sent one.
    public var rpName: String?
    /// The WebAuthn user handle (1–64 bytes).
    public let userHandle: [UInt8]
    /// The account name at creation, if the site sent one.
    public var userName: String?
    /// The account's display name at creation, if the site sent one.
    public var userDisplayName: String?
    /// The signature counter of the last assertion (0 after creation).
    public var signCount: UInt32
    /// When the passkey was made.
    public let createdAt: Date
    /// Whether the passkey answers getAssertion requests with an empty allowList (rk).
    public let isDiscoverable: Bool
    /// The `credProtect` level asked for at creation; `nil` (not asked) behaves as level 1.
    public let credentialProtection: CredentialProtectionPolicy?

    /// Metadata from its fields.
    public init(
        credentialID: [UInt8], rpID: String, rpName: String? = nil, userHandle: [UInt8], userName: String? = nil,
        userDisplayName: String? = nil, signCount: UInt32 = 0, createdAt: Date, isDiscoverable: Bool,
        credentialProtection: CredentialProtectionPolicy? = nil
    ) {
        self.credentialID = credentialID
        self.rpID = rpID
        self.rpName = rpName
        self.userHandle = userHandle
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.signCount = signCount
        self.createdAt = createdAt
        self.isDiscoverable = isDiscoverable
        self.credentialProtection = credentialProtection
    }

    /// The policy getAssertion enforces: the stored level, or level 1.
    public var effectiveCredentialProtection: CredentialProtectionPolicy {
        credentialProtection ?? .userVerificationOptional
    }

    /// The best name to show a person: the user name, else the display name, else the handle in hex.
    public var accountLabel: String { userName.nonEmpty ?? userDisplayName.nonEmpty ?? Hex.encode(userHandle) }
}

/// A passkey: its metadata, its ES256 private key and its prf secret.
public struct Passkey: Sendable {
    /// Length of the random credential IDs this authenticator makes.
    public static let credentialIDLength = 16
    /// Length of the per-credential prf secret.
    public static let prfSecretLength = 32

    /// What is not secret: IDs, names, counter, policy.
    public var metadata: PasskeyMetadata
    /// The credential's P-256 signing key.
    public let privateKey: P256.Signing.PrivateKey
    /// The HMAC-SHA256 key behind the `prf` extension, made with the passkey; `nil` for a
    /// passkey stored before this authenticator had prf (it then answers without prf results).
    public let prfSecret: [UInt8]?

    /// A passkey from its metadata and keys.
    public init(metadata: PasskeyMetadata, privateKey: P256.Signing.PrivateKey, prfSecret: [UInt8]? = nil) {
        self.metadata = metadata
        self.privateKey = privateKey
        self.prfSecret = prfSecret
    }

    /// The credential ID (from ``metadata``).
    public var credentialID: [UInt8] { metadata.credentialID }
}

extension Optional where Wrapped == String {
    /// The string unless it is `nil` or empty.
    package var nonEmpty: String? {
        if let self, !self.isEmpty { self } else { nil }
    }
}
