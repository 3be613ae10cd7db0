import HybridCore

/// `cbor` (SCHEMA.md §4.14): strict canonical CBOR, both directions.
struct CBORChecker: VectorKindChecker {
    let kind = "cbor"

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let encoded = try testCase.bytes("cbor")
        guard testCase.valid else {
            try Expect.failure(testCase, "decode", classify: vectorErrorClass) { _ = try CBORDecoder.decode(encoded) }
            return
        }
        let expected = try Self.value(from: try testCase.value("value"))
        let decoded = try Expect.success("decode", classify: vectorErrorClass) { try CBORDecoder.decode(encoded) }
        try Expect.equal("decoded value", decoded, expected)
        try Expect.bytes("encoding", CBOREncoder.encode(expected), encoded)
    }

    /// Converts the SCHEMA.md value model (`{"int": "5"}`, `{"map": [[k, v]]}`, …) to a ``CBORValue``.
    static func value(from json: JSONValue) throws(VectorMismatch) -> CBORValue {
        guard case .object(let object) = json, object.count == 1, let (type, inner) = object.first else {
            throw VectorMismatch("bad CBOR value model: \(json.summary)")
        }
        switch (type, inner) {
        case ("int", .string(let digits)):
            guard let number = Int64(digits) else { throw VectorMismatch("bad int \(digits)") }
            return .int(number)
        case ("bytes", _): return .bytes(try inner.bytes("bytes"))
        case ("text", .string(let text)): return .text(text)
        case ("bool", .bool(let flag)): return .bool(flag)
        case ("null", _): return .null
        case ("undefined", _): return .undefined
        case ("array", .array(let elements)):
            var values: [CBORValue] = []
            for element in elements { values.append(try value(from: element)) }
            return .array(values)
        case ("map", .array(let pairs)):
            var entries: [CBORMapEntry] = []
            for pair in pairs {
                guard case .array(let kv) = pair, kv.count == 2 else { throw VectorMismatch("bad map pair") }
                entries.append(CBORMapEntry(try value(from: kv[0]), try value(from: kv[1])))
            }
            return .map(entries)
        default:
            throw VectorMismatch("bad CBOR value model: \(json.summary)")
        }
    }
}
