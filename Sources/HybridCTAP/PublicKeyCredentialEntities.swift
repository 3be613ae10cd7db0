import HybridCore

/// The relying party of a makeCredential request (`PublicKeyCredentialRpEntity`).
public struct PublicKeyCredentialRPEntity: Hashable, Sendable {
    /// The RP ID, e.g. `"example.com"`.
    public var id: String
    /// A name for people. iOS requires it (protocol.md §10.5), so clients should send it.
    public var name: String?

    /// A relying party from its ID and optional name.
    public init(id: String, name: String? = nil) {
        self.id = id
        self.name = name
    }

    /// `{"id", "name"?}`.
    package var cbor: CBORValue {
        var entries: [CBORMapEntry] = [CBORMapEntry("id", .text(id))]
        entries.append("name", name.map(CBORValue.text))
        return .map(entries)
    }

    /// Parses the map; `icon` and unknown keys are ignored.
    package init(cbor: CBORValue, path: String = "rp", decoding: CTAPDecoding = .strict) throws(CTAPError) {
        let reader = try CTAPMapReader(cbor, path: path, decoding: decoding)
        self.init(id: try reader.requiredText("id", "id"), name: try reader.text("name", "name"))
    }
}

/// The user account of a request or assertion (`PublicKeyCredentialUserEntity`).
public struct PublicKeyCredentialUserEntity: Hashable, Sendable {
    /// The user handle: 1 to 64 bytes (WebAuthn §5.4.3).
    public var id: [UInt8]
    /// The account name (e.g. an email address).
    public var name: String?
    /// iOS requires it in makeCredential (protocol.md §10.5).
    public var displayName: String?

    /// The longest user handle WebAuthn allows.
    package static let maximumIDLength = 64

    /// A user from its handle and optional names.
    public init(id: [UInt8], name: String? = nil, displayName: String? = nil) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }

    /// `{"id", "name"?, "displayName"?}`.
    package var cbor: CBORValue {
        var entries: [CBORMapEntry] = [CBORMapEntry("id", .bytes(id))]
        entries.append("name", name.map(CBORValue.text))
        entries.append("displayName", displayName.map(CBORValue.text))
        return .map(entries)
    }

    /// Parses the map; the id must be 1 to 64 bytes. `icon` and unknown keys are ignored.
    package init(cbor: CBORValue, path: String = "user", decoding: CTAPDecoding = .strict) throws(CTAPError) {
        let reader = try CTAPMapReader(cbor, path: path, decoding: decoding)
        let id = reader.isLenient ? try reader.bytes("id", "id") ?? [] : try reader.requiredBytes("id", "id")
        guard reader.isLenient || (1...Self.maximumIDLength).contains(id.count) else {
            throw .invalidLength(field: reader.fieldPath("id"))
        }
        self.init(
            id: id, name: try reader.text("name", "name"), displayName: try reader.text("displayName", "displayName"))
    }
}

/// One entry of makeCredential's `pubKeyCredParams`: a credential type and a COSE algorithm.
public struct PublicKeyCredentialParameters: Hashable, Sendable {
    /// `"public-key"` for every credential WebAuthn defines.
    public var type: String
    /// A COSE algorithm identifier, e.g. ``COSEAlgorithm/es256``.
    public var algorithm: Int64

    /// Parameters; the type defaults to `"public-key"`.
    public init(type: String = PublicKeyCredentialDescriptor.publicKeyType, algorithm: Int64) {
        self.type = type
        self.algorithm = algorithm
    }

    /// `{"alg", "type"}`.
    package var cbor: CBORValue { ["alg": .int(algorithm), "type": .text(type)] }

    /// Parses the map; both members are required.
    package init(cbor: CBORValue, path: String, decoding: CTAPDecoding = .strict) throws(CTAPError) {
        let reader = try CTAPMapReader(cbor, path: path, decoding: decoding)
        self.init(type: try reader.requiredText("type", "type"), algorithm: try reader.requiredInt("alg", "alg"))
    }
}

/// COSE algorithm identifiers used here (IANA "COSE Algorithms").
public enum COSEAlgorithm {
    /// ECDSA with SHA-256 on P-256.
    public static let es256: Int64 = -7
}
