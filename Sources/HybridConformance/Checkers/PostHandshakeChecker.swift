import HybridCore

/// `postHandshake` (SCHEMA.md §4.18): the phone's first message → revision, getInfo and its
/// fields, features and legacy linking.
struct PostHandshakeChecker: VectorKindChecker {
    let kind = "postHandshake"

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let plaintext = try testCase.bytes("plaintext")
        guard testCase.valid else {
            try Expect.failure(testCase, "parse", classify: vectorErrorClass(of:)) {
                _ = try PostHandshakeMessage(decoding: plaintext)
            }
            return
        }
        let message = try Expect.success("parse", classify: vectorErrorClass(of:)) {
            try PostHandshakeMessage(decoding: plaintext)
        }
        try Expect.equal("revision", message.revision.rawValue, try testCase.int("revision"))
        try Expect.equal("getInfo", message.getInfo, try testCase.optionalBytes("getInfo"), show: Self.hex)
        try Expect.equal("features", Self.strings(message.features), try testCase.value("features"), show: \.summary)
        try Expect.equal(
            "effectiveFeatures", Self.strings(message.effectiveFeatures.map(\.rawValue)),
            try testCase.value("effectiveFeatures"), show: \.summary
        )
        try Expect.equal(
            "linking", message.linking.map(CBOREncoder.encode), try testCase.optionalBytes("linking"), show: Self.hex
        )
        try Expect.equal(
            "getInfoFields", try Self.getInfoFields(message.getInfo), try testCase.value("getInfoFields"),
            show: \.summary
        )
        let reparsed = try Expect.success("reparse encoded()", classify: vectorErrorClass(of:)) {
            try PostHandshakeMessage(decoding: message.encoded())
        }
        try Expect.equal("reparsed", reparsed, message)
    }

    private static func hex(_ bytes: [UInt8]?) -> String { bytes.map { Hex.encode($0) } ?? "null" }

    private static func strings(_ strings: [String]?) -> JSONValue {
        guard let strings else { return .null }
        return .array(strings.map { .string($0) })
    }

    /// `{versions, extensions, aaguid, options, transports, keys}` from getInfo keys 1, 2, 3, 4, 9.
    static func getInfoFields(_ getInfo: [UInt8]?) throws(VectorMismatch) -> JSONValue {
        guard let getInfo else { return .null }
        guard let info = try? CBORDecoder.decode(getInfo), let entries = info.mapEntries else {
            throw VectorMismatch("getInfo is not a CBOR map")
        }
        var keys: [JSONValue] = []
        for entry in entries {
            guard let key = entry.key.intValue else { throw VectorMismatch("getInfo has a non-integer key") }
            keys.append(.number(Double(key)))
        }
        var options: JSONValue = .null
        if let field = info[intKey: 4] {
            guard let optionEntries = field.mapEntries else { throw VectorMismatch("getInfo options is not a map") }
            var object: [String: JSONValue] = [:]
            for entry in optionEntries {
                guard let name = entry.key.textValue, let flag = entry.value.boolValue else {
                    throw VectorMismatch("getInfo option is not text → bool")
                }
                object[name] = .bool(flag)
            }
            options = .object(object)
        }
        var aaguid: JSONValue = .null
        if let field = info[intKey: 3] {
            guard let bytes = field.bytesValue else { throw VectorMismatch("getInfo aaguid is not bytes") }
            aaguid = .string(Hex.encode(bytes))
        }
        return .object([
            "versions": try textArray(info[intKey: 1]),
            "extensions": try textArray(info[intKey: 2]),
            "aaguid": aaguid,
            "options": options,
            "transports": try textArray(info[intKey: 9]),
            "keys": .array(keys),
        ])
    }

    private static func textArray(_ value: CBORValue?) throws(VectorMismatch) -> JSONValue {
        guard let value else { return .null }
        guard let elements = value.arrayValue else { throw VectorMismatch("getInfo field is not an array") }
        var out: [JSONValue] = []
        for element in elements {
            guard let text = element.textValue else { throw VectorMismatch("getInfo array holds a non-string") }
            out.append(.string(text))
        }
        return .array(out)
    }
}
