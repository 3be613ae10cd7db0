import Crypto

/// The CBOR map behind a `FIDO:/` QR code (protocol.md §1.3). Chromium: `qr::Encode` / `qr::Parse`.
///
/// | Key | Field |
/// |---|---|
/// | 0 | ``identityKey`` (33-byte compressed P-256 point) |
/// | 1 | ``secret`` (16 bytes) |
/// | 2 | ``knownDomains`` (number of assigned tunnel domains the client knows) |
/// | 3 | ``timestamp`` (seconds since the Unix epoch) |
/// | 4 | ``supportsLinking`` |
/// | 5 | ``requestTypeHint`` (``requestType`` is its effective meaning) |
/// | 6 | ``channels`` (CTAP 2.3 data-transfer channels) |
///
/// Parsing ignores every other key but lists it in ``otherKeys``; ``url`` and ``cbor`` write back
/// only keys 0–5 and, when ``channels`` is set, key 6.
public struct QRCodePayload: Sendable {
    /// The URL prefix the client writes; parsers compare it ignoring ASCII case.
    public static let urlPrefix = "FIDO:/"
    /// Length of the compressed identity key.
    package static let compressedPublicKeyByteCount = 33

    /// The client's QR identity public key (key 0).
    public let identityKey: P256.KeyAgreement.PublicKey
    /// The QR secret (key 1).
    public let secret: QRSecret
    /// Key 2, or `nil` if absent (Chromium then assumes 0). Any integer is accepted when parsing.
    public let knownDomains: Int64?
    /// Key 3 if it is an integer, else `nil`. Never validated.
    public let timestamp: Int64?
    /// Key 4, or `nil` if absent.
    public let supportsLinking: Bool?
    /// Key 5 exactly as sent, or `nil` if absent.
    public let requestTypeHint: String?
    /// Key 6 if it is an array of unsigned integers, else `nil` (absent, or another type such as
    /// the bool of pre-CTAP-2.3 Play Services).
    public let channels: [DataTransferChannel]?
    /// Every map key other than 0–5, in encoded order (key 6 included, whatever its type). For a
    /// built payload: `[6]` if ``channels`` is set, else empty.
    public let otherKeys: [CBORValue]

    /// The effective request type: what key 5 names, or getAssertion if it is absent or unknown.
    public var requestType: HybridRequestType { HybridRequestType(hint: requestTypeHint) }

    /// A payload as a current client generates it (Chromium ≥ M136 for WebAuthn).
    ///
    /// Writes keys 0–5, with key 2 = 2 (the assigned domains this implementation knows) and key 4
    /// always present, so that intermediate Android builds select protocol revision 1 and the new
    /// crypter (protocol.md §10.2, §10.3). Key 6 is written only when `channels` is given.
    ///
    /// - Parameters:
    ///   - identityKey: The public half of the client's QR identity key.
    ///   - secret: 16 random bytes.
    ///   - timestamp: The current time in seconds since the Unix epoch, injected by the caller.
    ///   - requestType: The hint for the phone's UI.
    ///   - supportsLinking: Whether the client accepts linking data; `false` as Chrome ≥ M136.
    ///   - channels: CTAP 2.3 channels to offer; leave `nil` unless offering BLE L2CAP, because
    ///     Play Services before CTAP 2.3 rejects an array at key 6.
    public init(
        identityKey: P256.KeyAgreement.PublicKey, secret: QRSecret, timestamp: Int64,
        requestType: HybridRequestType, supportsLinking: Bool = false, channels: [DataTransferChannel]? = nil
    ) {
        self.init(
            identityKey: identityKey, secret: secret, knownDomains: Int64(TunnelDomainID.assignedCount),
            timestamp: timestamp, supportsLinking: supportsLinking, requestTypeHint: requestType.hint,
            channels: channels
        )
    }

    /// A payload with every optional field chosen by the caller; `nil` fields are not written.
    public init(
        identityKey: P256.KeyAgreement.PublicKey, secret: QRSecret, knownDomains: Int64?, timestamp: Int64?,
        supportsLinking: Bool?, requestTypeHint: String?, channels: [DataTransferChannel]? = nil
    ) {
        self.identityKey = identityKey
        self.secret = secret
        self.knownDomains = knownDomains
        self.timestamp = timestamp
        self.supportsLinking = supportsLinking
        self.requestTypeHint = requestTypeHint
        self.channels = channels
        self.otherKeys = channels == nil ? [] : [6]
    }

    /// Key 0 as written: `02`/`03` || X.
    public var compressedPublicKey: [UInt8] { Array(identityKey.compressedRepresentation) }

    /// The identity key as `04 || X || Y`, the form that enters the Noise prologue.
    public var uncompressedPublicKey: [UInt8] { Array(identityKey.x963Representation) }

    /// The map this payload writes: keys 0–5 that are not `nil`, and key 6 if ``channels`` is set.
    package var cborValue: CBORValue {
        var entries = [
            CBORMapEntry(0, .bytes(compressedPublicKey)),
            CBORMapEntry(1, .bytes(secret.bytes)),
        ]
        if let knownDomains { entries.append(CBORMapEntry(2, .int(knownDomains))) }
        if let timestamp { entries.append(CBORMapEntry(3, .int(timestamp))) }
        if let supportsLinking { entries.append(CBORMapEntry(4, .bool(supportsLinking))) }
        if let requestTypeHint { entries.append(CBORMapEntry(5, .text(requestTypeHint))) }
        if let channels {
            entries.append(CBORMapEntry(6, .array(channels.map { .int(Int64(clamping: $0.rawValue)) })))
        }
        return .map(entries)
    }

    /// The canonical CBOR encoding of `cborValue`.
    public var cbor: [UInt8] { CBOREncoder.encode(cborValue) }

    /// The text to put in the QR code: `FIDO:/` (upper case) followed by the digits of ``cbor``.
    public var url: String { Self.urlPrefix + DigitEncoding.encode(cbor) }
}

extension QRCodePayload: Equatable {
    /// Equal when every field, including the identity key's point, is the same.
    public static func == (lhs: QRCodePayload, rhs: QRCodePayload) -> Bool {
        lhs.compressedPublicKey == rhs.compressedPublicKey && lhs.secret.bytes == rhs.secret.bytes
            && lhs.knownDomains == rhs.knownDomains && lhs.timestamp == rhs.timestamp
            && lhs.supportsLinking == rhs.supportsLinking && lhs.requestTypeHint == rhs.requestTypeHint
            && lhs.channels == rhs.channels && lhs.otherKeys == rhs.otherKeys
    }
}
