import Crypto

/// The linking-info map a phone sends so the client can contact it later without a QR code
/// (protocol.md §7.6, SCHEMA.md §4.19). Chromium: `Pairing::Parse` and the phone's
/// `GetLinkingInfo`.
///
/// | Key | Field |
/// |---|---|
/// | 1 | ``contactID`` |
/// | 2 | ``pairingID`` |
/// | 3 | ``linkSecret`` |
/// | 4 | ``authenticatorPublicKey`` (65 bytes, uncompressed) |
/// | 5 | ``phoneName`` |
/// | 6 | ``signature`` (see `LinkingSignature`) |
/// | 999 | ``playServicesTag`` (`true` marks a Google Play Services pairing) |
///
/// It arrives in update key 1, or in post-handshake key 2 from older phones. A client stores a
/// pairing only after `verifySignature(clientIdentityKey:handshakeHash:)` succeeds.
public struct LinkingInfo: Sendable {
    /// Key 1: opaque; the client puts it in the `/cable/contact/` URL.
    public let contactID: [UInt8]
    /// Key 2: echoed as key 1 of the client payload (Chromium phone: 8 random bytes).
    public let pairingID: [UInt8]
    /// Key 3: the secret behind linked-flow adverts and PSKs (Chromium phone: 32 bytes; not
    /// size-checked).
    public let linkSecret: [UInt8]
    /// Key 4: the phone's long-term identity key.
    public let authenticatorPublicKey: P256.KeyAgreement.PublicKey
    /// Key 5: a display name such as "Pixel 6a".
    public let phoneName: String
    /// Key 6: HMAC-SHA256 over the handshake hash, keyed by ECDH of the two identity keys.
    public let signature: [UInt8]
    /// Whether key 999 is `true`.
    public let playServicesTag: Bool

    /// Builds and signs linking info on the phone.
    ///
    /// - Parameters:
    ///   - identityKey: The phone's identity key pair; its public half goes in key 4.
    ///   - clientIdentityKey: The client's QR identity key (QR key 0).
    ///   - handshakeHash: The hash of the handshake this info is sent on.
    package init(
        contactID: [UInt8], pairingID: [UInt8], linkSecret: [UInt8], identityKey: P256.KeyAgreement.PrivateKey,
        phoneName: String, clientIdentityKey: P256.KeyAgreement.PublicKey, handshakeHash: some Collection<UInt8>,
        playServicesTag: Bool = false
    ) {
        self.contactID = contactID
        self.pairingID = pairingID
        self.linkSecret = linkSecret
        self.authenticatorPublicKey = identityKey.publicKey
        self.phoneName = phoneName
        self.signature = LinkingSignature.compute(
            privateKey: identityKey, peerPublicKey: clientIdentityKey, handshakeHash: handshakeHash
        )
        self.playServicesTag = playServicesTag
    }

    /// Reads the fields of a linking map without verifying the signature.
    ///
    /// Checks, in order: a map; keys 1 to 6 each present, key 5 text and the others byte strings;
    /// key 4 is 65 bytes; key 4 is a point on the curve. Other keys are ignored.
    ///
    /// - Throws: ``HybridMessageError``.
    package init(cborValue value: CBORValue) throws(HybridMessageError) {
        guard value.mapEntries != nil else { throw .notAMap }
        var fields: [Int64: [UInt8]] = [:]
        var phoneName = ""
        for key: Int64 in 1...6 {
            guard let field = value[intKey: key] else { throw .missingKey(key) }
            if key == 5 {
                guard let text = field.textValue else { throw .wrongType(key: key) }
                phoneName = text
            } else {
                guard let bytes = field.bytesValue else { throw .wrongType(key: key) }
                fields[key] = bytes
            }
        }
        let publicKeyBytes = fields[4] ?? []
        guard publicKeyBytes.count == P256.KeyAgreement.PublicKey.uncompressedByteCount else {
            throw .invalidLength(key: 4, length: publicKeyBytes.count)
        }
        guard let publicKey = P256.KeyAgreement.PublicKey(uncompressedBytes: publicKeyBytes) else {
            throw .invalidPublicKey
        }
        self.contactID = fields[1] ?? []
        self.pairingID = fields[2] ?? []
        self.linkSecret = fields[3] ?? []
        self.authenticatorPublicKey = publicKey
        self.phoneName = phoneName
        self.signature = fields[6] ?? []
        self.playServicesTag = value[intKey: 999]?.boolValue == true
    }

    /// Decodes strict CBOR, then reads the fields as `init(cborValue:)` does.
    ///
    /// - Throws: ``HybridMessageError``.
    public init(cbor: some Collection<UInt8>) throws(HybridMessageError) {
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(cbor)
        } catch {
            throw .cbor(error)
        }
        try self.init(cborValue: value)
    }

    /// Reads the fields and verifies the signature: what a client does before storing a pairing.
    ///
    /// - Throws: ``HybridMessageError``; ``HybridMessageError/invalidSignature`` last.
    package init(
        verifying value: CBORValue, clientIdentityKey: P256.KeyAgreement.PrivateKey,
        handshakeHash: some Collection<UInt8>
    ) throws(HybridMessageError) {
        try self.init(cborValue: value)
        try verifySignature(clientIdentityKey: clientIdentityKey, handshakeHash: handshakeHash)
    }

    /// Checks that ``signature`` is 32 bytes and binds ``authenticatorPublicKey`` to this handshake
    /// (compared in constant time).
    ///
    /// - Parameters:
    ///   - clientIdentityKey: The client's QR identity private key.
    ///   - handshakeHash: The hash of the handshake the info arrived on.
    /// - Throws: ``HybridMessageError/invalidSignature``.
    package func verifySignature(
        clientIdentityKey: P256.KeyAgreement.PrivateKey, handshakeHash: some Collection<UInt8>
    ) throws(HybridMessageError) {
        do {
            try LinkingSignature.verify(
                signature, privateKey: clientIdentityKey, peerPublicKey: authenticatorPublicKey,
                handshakeHash: handshakeHash
            )
        } catch {
            throw .invalidSignature
        }
    }

    /// The uncompressed identity key, `04 || X || Y` (key 4).
    package var authenticatorPublicKeyBytes: [UInt8] { Array(authenticatorPublicKey.x963Representation) }

    /// The map keys 1–6, plus 999 when ``playServicesTag`` is set.
    package var cborValue: CBORValue {
        var entries = [
            CBORMapEntry(1, .bytes(contactID)),
            CBORMapEntry(2, .bytes(pairingID)),
            CBORMapEntry(3, .bytes(linkSecret)),
            CBORMapEntry(4, .bytes(authenticatorPublicKeyBytes)),
            CBORMapEntry(5, .text(phoneName)),
            CBORMapEntry(6, .bytes(signature)),
        ]
        if playServicesTag { entries.append(CBORMapEntry(999, .bool(true))) }
        return .map(entries)
    }

    /// The canonical CBOR encoding of `cborValue`.
    public var cbor: [UInt8] { CBOREncoder.encode(cborValue) }
}

extension LinkingInfo: Equatable {
    /// Equal when every field is the same.
    public static func == (lhs: LinkingInfo, rhs: LinkingInfo) -> Bool { lhs.cborValue == rhs.cborValue }
}
