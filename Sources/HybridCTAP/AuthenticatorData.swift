import Crypto
import HybridCore

/// The authenticator data signed in attestations and assertions (WebAuthn §6.1):
/// rpIdHash (32) ‖ flags (1) ‖ signCount (BE32) ‖ attested credential data? ‖ extensions?
///
/// A parsed value keeps the bytes it was parsed from (`receivedBytes`) and ``encoded`` returns
/// them unchanged until a field is modified: signatures cover the authenticator's bytes, which a
/// client must pass on as received. Two values are equal when their ``encoded`` bytes are.
public struct AuthenticatorData: Hashable, Sendable {
    /// The flags byte. Unknown (RFU) bits are kept as given.
    public struct Flags: OptionSet, Hashable, Sendable {
        /// The flags byte.
        public let rawValue: UInt8
        /// Flags from the flags byte.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// UP: the user was present.
        public static let userPresent = Self(rawValue: 0x01)
        /// UV: the user was verified.
        public static let userVerified = Self(rawValue: 0x04)
        /// BE: the credential may be backed up (multi-device).
        public static let backupEligible = Self(rawValue: 0x08)
        /// BS: the credential is backed up.
        public static let backedUp = Self(rawValue: 0x10)
        /// AT: attested credential data follows.
        public static let attestedCredentialData = Self(rawValue: 0x40)
        /// ED: an extensions map follows.
        public static let extensionData = Self(rawValue: 0x80)
    }

    /// SHA-256 of the RP ID.
    public var rpIDHash: [UInt8] {
        didSet { receivedBytes = nil }
    }
    /// The flags; AT and ED always match the presence of ``attestedCredentialData`` and
    /// ``extensions`` (the initializer and ``encoded`` keep them consistent).
    public private(set) var flags: Flags
    /// The signature counter (big-endian in the encoding; 0 when the authenticator keeps none).
    public var signCount: UInt32 {
        didSet { receivedBytes = nil }
    }
    /// The attested credential data (makeCredential only); setting it updates the AT flag.
    public var attestedCredentialData: AttestedCredentialData? {
        didSet {
            flags = Self.consistent(flags, attestedCredentialData, extensions)
            receivedBytes = nil
        }
    }
    /// The authenticator extension outputs, a CBOR map.
    public var extensions: CBORValue? {
        didSet {
            flags = Self.consistent(flags, attestedCredentialData, extensions)
            receivedBytes = nil
        }
    }
    /// The exact bytes ``init(bytes:)`` parsed, or `nil` for a value built in code or modified
    /// since. ``encoded`` returns them as they are.
    package private(set) var receivedBytes: [UInt8]?

    /// The fixed part: rpIdHash, flags and counter.
    package static let minimumLength = 37

    /// - Parameters:
    ///   - rpIDHash: SHA-256 of the RP ID: 32 bytes.
    ///   - flags: UP, UV, BE, BS (and RFU bits); AT and ED are set from the other arguments.
    ///   - signCount: the signature counter.
    ///   - attestedCredentialData: the new credential (makeCredential), or `nil`.
    ///   - extensions: the authenticator extension outputs map, or `nil`.
    public init(
        rpIDHash: [UInt8], flags: Flags, signCount: UInt32,
        attestedCredentialData: AttestedCredentialData? = nil, extensions: CBORValue? = nil
    ) {
        self.rpIDHash = rpIDHash
        self.flags = Self.consistent(flags, attestedCredentialData, extensions)
        self.signCount = signCount
        self.attestedCredentialData = attestedCredentialData
        self.extensions = extensions
    }

    /// SHA-256 of the UTF-8 RP ID, as it appears in authenticator data.
    public static func rpIDHash(_ rpID: String) -> [UInt8] { Array(SHA256.hash(data: Array(rpID.utf8))) }

    /// The wire bytes: `receivedBytes` for an unmodified parsed value, else the fields with the
    /// extensions (and the credential key) in canonical CBOR.
    public var encoded: [UInt8] {
        if let receivedBytes { return receivedBytes }
        var out = rpIDHash
        out.append(flags.rawValue)
        out += [
            UInt8(signCount >> 24), UInt8((signCount >> 16) & 0xff), UInt8((signCount >> 8) & 0xff),
            UInt8(signCount & 0xff),
        ]
        if let attestedCredentialData { out += attestedCredentialData.encoded }
        if let extensions { out += CBOREncoder.encode(extensions) }
        return out
    }

    /// Parses authenticator data strictly: the fixed part, then exactly what AT and ED announce
    /// (strict canonical CBOR for the credential key and the extensions map), and nothing after.
    public init(bytes: some Collection<UInt8>) throws(CTAPError) {
        let bytes = Array(bytes)
        guard bytes.count >= Self.minimumLength else { throw .authenticatorDataTruncated }
        let flags = Flags(rawValue: bytes[32])
        var signCount: UInt32 = 0
        for byte in bytes[33..<37] { signCount = signCount << 8 | UInt32(byte) }
        var offset = Self.minimumLength
        var attested: AttestedCredentialData? = nil
        if flags.contains(.attestedCredentialData) {
            let parsed = try AttestedCredentialData.parsePrefix(bytes[offset...])
            attested = parsed.value
            offset += parsed.length
        }
        var extensions: CBORValue? = nil
        if flags.contains(.extensionData) {
            guard offset < bytes.count else { throw .authenticatorDataTruncated }
            let value: CBORValue
            do { value = try CBORDecoder.decode(bytes[offset...]) } catch { throw .invalidCBOR(error) }
            guard value.mapEntries != nil else { throw .unexpectedType(field: "authData.extensions") }
            extensions = value
            offset = bytes.count
        }
        guard offset == bytes.count else { throw .authenticatorDataTrailingBytes }
        self.init(
            rpIDHash: Array(bytes[0..<32]), flags: flags, signCount: signCount,
            attestedCredentialData: attested, extensions: extensions)
        receivedBytes = bytes
    }

    /// Equal when the encodings are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.encoded == rhs.encoded }

    /// Hashes the encoding.
    public func hash(into hasher: inout Hasher) { hasher.combine(encoded) }

    private static func consistent(_ flags: Flags, _ attested: AttestedCredentialData?, _ extensions: CBORValue?)
        -> Flags
    {
        var flags = flags
        if attested == nil { flags.remove(.attestedCredentialData) } else { flags.insert(.attestedCredentialData) }
        if extensions == nil { flags.remove(.extensionData) } else { flags.insert(.extensionData) }
        return flags
    }
}

/// The credential part of authenticator data: aaguid (16) ‖ credentialIdLength (BE16) ‖
/// credentialId ‖ credentialPublicKey (a COSE_Key, CBOR).
public struct AttestedCredentialData: Hashable, Sendable {
    /// The authenticator's AAGUID: 16 bytes.
    public var aaguid: [UInt8]
    /// The credential ID (at most `maximumCredentialIDLength` bytes).
    public var credentialID: [UInt8]
    /// The COSE_Key map as given; ``COSEKey`` reads ES256 keys from it.
    public var credentialPublicKey: CBORValue

    /// The longest credential ID WebAuthn allows.
    package static let maximumCredentialIDLength = 1023

    /// Attested credential data from its fields.
    public init(aaguid: [UInt8], credentialID: [UInt8], credentialPublicKey: CBORValue) {
        self.aaguid = aaguid
        self.credentialID = credentialID
        self.credentialPublicKey = credentialPublicKey
    }

    /// The encoding: AAGUID, 2-byte ID length, ID, COSE key (WebAuthn §6.5.2).
    public var encoded: [UInt8] {
        let length = UInt16(clamping: credentialID.count)
        return aaguid + [UInt8(length >> 8), UInt8(length & 0xff)] + credentialID
            + CBOREncoder.encode(credentialPublicKey)
    }

    /// Parses the attested credential data at the start of `bytes`; returns it and its length.
    static func parsePrefix(_ bytes: ArraySlice<UInt8>) throws(CTAPError) -> (value: Self, length: Int) {
        guard bytes.count >= 18 else { throw .authenticatorDataTruncated }
        let start = bytes.startIndex
        let aaguid = Array(bytes[start..<start + 16])
        let idLength = Int(bytes[start + 16]) << 8 | Int(bytes[start + 17])
        guard idLength <= maximumCredentialIDLength else { throw .invalidLength(field: "authData.credentialId") }
        guard bytes.count >= 18 + idLength else { throw .authenticatorDataTruncated }
        let credentialID = Array(bytes[start + 18..<start + 18 + idLength])
        let keyStart = start + 18 + idLength
        guard keyStart < bytes.endIndex else { throw .authenticatorDataTruncated }
        let key: (value: CBORValue, length: Int)
        do { key = try CBORDecoder.decodePrefix(bytes[keyStart...]) } catch { throw .invalidCBOR(error) }
        guard key.value.mapEntries != nil else { throw .unexpectedType(field: "authData.credentialPublicKey") }
        return (
            Self(aaguid: aaguid, credentialID: credentialID, credentialPublicKey: key.value), 18 + idLength + key.length
        )
    }
}
