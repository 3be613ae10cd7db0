import Crypto

extension QRCodePayload {
    /// Parses a scanned `FIDO:/…` text.
    ///
    /// Checks, in order (Chromium's `qr::Parse`, SCHEMA.md §4.2): the prefix, ignoring ASCII case;
    /// the digits; strict CBOR; a map; keys 0 and 1 present byte strings; key 1 is 16 bytes; key 0
    /// is 33 bytes and a point on the curve; key 2 an integer, key 4 a bool and key 5 text, if
    /// present. Everything else is ignored.
    ///
    /// - Throws: ``QRCodeError``.
    public init(url: some StringProtocol) throws(QRCodeError) {
        guard Self.hasURLPrefix(url) else { throw .invalidPrefix }
        let digits = String(decoding: Array(url.utf8)[Self.urlPrefix.utf8.count...], as: UTF8.self)
        let bytes: [UInt8]
        do {
            bytes = try DigitEncoding.decode(digits)
        } catch {
            throw .digits(error)
        }
        try self.init(cbor: bytes)
    }

    /// Whether `text` starts with `FIDO:/` in any ASCII case, as Chromium matches it: what tells a
    /// hybrid QR code apart from other codes.
    public static func hasURLPrefix(_ text: some StringProtocol) -> Bool {
        let prefix = Array(urlPrefix.utf8)
        let utf8 = Array(text.utf8.prefix(prefix.count))
        return utf8.count == prefix.count
            && zip(utf8, prefix).allSatisfy({ asciiLowercased($0) == asciiLowercased($1) })
    }

    /// Parses the CBOR bytes behind the digits (all checks of ``init(url:)`` after the digits).
    ///
    /// - Throws: ``QRCodeError``.
    public init(cbor: some Collection<UInt8>) throws(QRCodeError) {
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(cbor)
        } catch {
            throw .cbor(error)
        }
        try self.init(cborValue: value)
    }

    /// Reads the fields of a decoded map (all checks of ``init(url:)`` from "a map" on).
    ///
    /// - Throws: ``QRCodeError``.
    package init(cborValue value: CBORValue) throws(QRCodeError) {
        guard value.mapEntries != nil else { throw .notAMap }
        let publicKeyBytes = try Self.requiredBytes(value, key: 0)
        let secretBytes = try Self.requiredBytes(value, key: 1)
        guard let secret = QRSecret(bytes: secretBytes) else { throw .invalidSecretLength(secretBytes.count) }
        guard publicKeyBytes.count == Self.compressedPublicKeyByteCount else {
            throw .invalidPublicKeyLength(publicKeyBytes.count)
        }
        guard publicKeyBytes[0] == 0x02 || publicKeyBytes[0] == 0x03,
            let identityKey = try? P256.KeyAgreement.PublicKey(compressedRepresentation: publicKeyBytes)
        else { throw .invalidPublicKey }

        var knownDomains: Int64? = nil
        if let field = value[intKey: 2] {
            guard let number = field.intValue else { throw .wrongType(key: 2) }
            knownDomains = number
        }
        var supportsLinking: Bool? = nil
        if let field = value[intKey: 4] {
            guard let flag = field.boolValue else { throw .wrongType(key: 4) }
            supportsLinking = flag
        }
        var requestTypeHint: String? = nil
        if let field = value[intKey: 5] {
            guard let text = field.textValue else { throw .wrongType(key: 5) }
            requestTypeHint = text
        }

        self.identityKey = identityKey
        self.secret = secret
        self.knownDomains = knownDomains
        self.timestamp = value[intKey: 3]?.intValue
        self.supportsLinking = supportsLinking
        self.requestTypeHint = requestTypeHint
        self.channels = value[intKey: 6].flatMap(Self.channels(from:))
        self.otherKeys = (value.mapEntries ?? []).map(\.key).filter { key in
            guard let number = key.intValue else { return true }
            return !(0...5).contains(number)
        }
    }

    private static func requiredBytes(_ map: CBORValue, key: Int64) throws(QRCodeError) -> [UInt8] {
        guard let field = map[intKey: key] else { throw .missingKey(key) }
        guard let bytes = field.bytesValue else { throw .wrongType(key: key) }
        return bytes
    }

    /// Key 6 as channels if it is an array of unsigned integers; anything else is ignored.
    private static func channels(from value: CBORValue) -> [DataTransferChannel]? {
        guard let elements = value.arrayValue else { return nil }
        var channels: [DataTransferChannel] = []
        for element in elements {
            guard let number = element.intValue, number >= 0 else { return nil }
            channels.append(DataTransferChannel(rawValue: UInt64(number)))
        }
        return channels
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
