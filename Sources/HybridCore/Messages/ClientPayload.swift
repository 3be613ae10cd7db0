/// The `X-caBLE-Client-Payload` header a client sends to `/cable/contact/…` in the linked flow:
/// upper-case hex of the canonical CBOR map `{1: pairing ID, 2: client nonce, 3: request type}`
/// (protocol.md §5.2, SCHEMA.md §4.11). The tunnel operator forwards it to the phone.
package struct ClientPayload: Hashable, Sendable {
    /// The header's name.
    package static let headerName = "X-caBLE-Client-Payload"
    /// Length of the client nonce.
    package static let clientNonceByteCount = 16

    /// Key 1: the pairing ID from linking key 2.
    package let pairingID: [UInt8]
    /// Key 2: 16 random bytes that salt the linked-flow advert key.
    package let clientNonce: [UInt8]
    /// Key 3: the request type. The oldest Chromium clients omitted it, which means getAssertion.
    package let requestType: HybridRequestType

    /// A payload for a linked session.
    ///
    /// - Parameters:
    ///   - pairingID: ``LinkingInfo/pairingID`` of the stored pairing.
    ///   - clientNonce: 16 random bytes, injected; any other length is a programming error.
    ///   - requestType: What the client is about to ask.
    package init(pairingID: [UInt8], clientNonce: [UInt8], requestType: HybridRequestType) {
        precondition(clientNonce.count == Self.clientNonceByteCount, "the client nonce is 16 bytes")
        self.pairingID = pairingID
        self.clientNonce = clientNonce
        self.requestType = requestType
    }

    /// The map `{1: pairingID, 2: clientNonce, 3: requestType}`.
    package var cborValue: CBORValue {
        [1: .bytes(pairingID), 2: .bytes(clientNonce), 3: .text(requestType.hint)]
    }

    /// The canonical CBOR encoding of ``cborValue``.
    package var cbor: [UInt8] { CBOREncoder.encode(cborValue) }

    /// The header value: upper-case hex of ``cbor``.
    package var headerValue: String { Hex.encode(cbor, uppercase: true) }

    /// Parses a header value (hex in either case), as a phone or test relay would.
    ///
    /// Checks, in order: hex; strict CBOR; a map; key 1 a byte string; key 2 a 16-byte byte
    /// string; key 3, if present, text (unknown or absent means getAssertion). Other keys, such as
    /// a test build's 999, are ignored.
    ///
    /// - Throws: ``HybridMessageError``.
    package init(headerValue: some StringProtocol) throws(HybridMessageError) {
        let bytes: [UInt8]
        do {
            bytes = try Hex.decode(headerValue)
        } catch {
            throw .invalidHex
        }
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(bytes)
        } catch {
            throw .cbor(error)
        }
        guard value.mapEntries != nil else { throw .notAMap }
        guard let pairingField = value[intKey: 1] else { throw .missingKey(1) }
        guard let pairingID = pairingField.bytesValue else { throw .wrongType(key: 1) }
        guard let nonceField = value[intKey: 2] else { throw .missingKey(2) }
        guard let clientNonce = nonceField.bytesValue else { throw .wrongType(key: 2) }
        guard clientNonce.count == Self.clientNonceByteCount else {
            throw .invalidLength(key: 2, length: clientNonce.count)
        }
        var hint: String? = nil
        if let field = value[intKey: 3] {
            guard let text = field.textValue else { throw .wrongType(key: 3) }
            hint = text
        }
        self.pairingID = pairingID
        self.clientNonce = clientNonce
        self.requestType = HybridRequestType(hint: hint)
    }
}
