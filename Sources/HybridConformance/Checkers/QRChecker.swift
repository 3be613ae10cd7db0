import HybridCore

/// `qr` (SCHEMA.md §4.2): `FIDO:/` URL → every CBOR map field, and back where `encodes` says so.
struct QRChecker: VectorKindChecker {
    let kind = "qr"

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let url = try testCase.string("url")
        guard testCase.valid else {
            try Expect.failure(testCase, "parse", classify: vectorErrorClass(of:)) { _ = try QRCodePayload(url: url) }
            if let cbor = try testCase.optionalBytes("cbor") {
                try Expect.bytes("digits of url", try Self.digitBytes(of: url), cbor)
                try Expect.failure(testCase, "parse cbor", classify: vectorErrorClass(of:)) {
                    _ = try QRCodePayload(cbor: cbor)
                }
            }
            return
        }
        let payload = try Expect.success("parse", classify: vectorErrorClass(of:)) { try QRCodePayload(url: url) }
        let cbor = try testCase.bytes("cbor")
        try Expect.bytes("cbor (digits of url)", try Self.digitBytes(of: url), cbor)
        try Expect.bytes("publicKey", payload.compressedPublicKey, try testCase.bytes("publicKey"))
        try Expect.bytes(
            "publicKeyUncompressed", payload.uncompressedPublicKey, try testCase.bytes("publicKeyUncompressed"))
        try Expect.bytes("secret", payload.secret.bytes, try testCase.bytes("secret"))
        try Expect.equal("knownDomains", payload.knownDomains.map(Int.init), try testCase.optionalInt("knownDomains"))
        try Expect.equal("timestamp", payload.timestamp.map(Int.init), try testCase.optionalInt("timestamp"))
        try Expect.equal("supportsLinking", payload.supportsLinking, try testCase.optionalBool("supportsLinking"))
        try Expect.equal("requestTypeRaw", payload.requestTypeHint, try testCase.optionalString("requestTypeRaw"))
        try Expect.equal("requestType", payload.requestType.hint, try testCase.string("requestType"))
        try Expect.equal("channels", try Self.channels(payload), try testCase.value("channels"), show: \.summary)
        try Expect.equal("otherKeys", try Self.otherKeys(payload), try testCase.value("otherKeys"), show: \.summary)

        // SCHEMA's rule: re-encoding keys 0-5 (nulls omitted) gives exactly `cbor` and `url`.
        let keysZeroToFive = QRCodePayload(
            identityKey: payload.identityKey, secret: payload.secret, knownDomains: payload.knownDomains,
            timestamp: payload.timestamp, supportsLinking: payload.supportsLinking,
            requestTypeHint: payload.requestTypeHint
        )
        let encodes = keysZeroToFive.cbor == cbor && keysZeroToFive.url == url
        try Expect.equal("encodes", encodes, try testCase.bool("encodes"))
        if encodes {
            try Expect.bytes("payload.cbor", payload.cbor, cbor)
            try Expect.equal("payload.url", payload.url, url)
        }
        let reparsed = try Expect.success("reparse url", classify: vectorErrorClass(of:)) {
            try QRCodePayload(url: payload.url)
        }
        try Expect.bytes("reparsed cbor", reparsed.cbor, payload.cbor)
        try Expect.equal("reparsed channels", reparsed.channels, payload.channels)
    }

    private static func digitBytes(of url: String) throws(VectorMismatch) -> [UInt8] {
        let digits = url.utf8.dropFirst(QRCodePayload.urlPrefix.utf8.count)
        guard let bytes = try? DigitEncoding.decode(String(decoding: digits, as: UTF8.self)) else {
            throw VectorMismatch("url digits do not decode")
        }
        return bytes
    }

    private static func channels(_ payload: QRCodePayload) throws(VectorMismatch) -> JSONValue {
        guard let channels = payload.channels else { return .null }
        return .array(channels.map { .number(Double($0.rawValue)) })
    }

    private static func otherKeys(_ payload: QRCodePayload) throws(VectorMismatch) -> JSONValue {
        var keys: [JSONValue] = []
        for key in payload.otherKeys {
            switch key {
            case .int(let number): keys.append(.number(Double(number)))
            case .text(let text): keys.append(.string(text))
            default: throw VectorMismatch("unexpected key type \(key)")
            }
        }
        return .array(keys)
    }
}
