import Crypto

/// What a phone needs to offer linking (state-assisted pairing) in its update message (§7.6).
///
/// The signature binds the phone's identity key to one handshake, so the session builds the
/// ``LinkingInfo`` itself once the handshake hash is known.
public struct PhoneLinkingIdentity: Sendable {
    /// Opaque ID the client puts in `/cable/contact/` URLs.
    public var contactID: [UInt8]
    /// The pairing ID (Chromium: 8 random bytes).
    public var pairingID: [UInt8]
    /// The link secret (Chromium: 32 bytes).
    public var linkSecret: [UInt8]
    /// The phone's long-term identity key.
    public var identityKey: P256.KeyAgreement.PrivateKey
    /// The name the client shows for this phone.
    public var phoneName: String

    /// A linking identity from its stored parts.
    public init(
        contactID: [UInt8], pairingID: [UInt8], linkSecret: [UInt8], identityKey: P256.KeyAgreement.PrivateKey,
        phoneName: String
    ) {
        self.contactID = contactID
        self.pairingID = pairingID
        self.linkSecret = linkSecret
        self.identityKey = identityKey
        self.phoneName = phoneName
    }

    /// The signed linking info for one handshake.
    public func linkingInfo(clientIdentityKey: P256.KeyAgreement.PublicKey, handshakeHash: [UInt8]) -> LinkingInfo {
        LinkingInfo(
            contactID: contactID, pairingID: pairingID, linkSecret: linkSecret, identityKey: identityKey,
            phoneName: phoneName, clientIdentityKey: clientIdentityKey, handshakeHash: handshakeHash)
    }
}
