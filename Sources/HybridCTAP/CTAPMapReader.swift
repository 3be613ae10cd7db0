import HybridCore

/// How strictly the request decoders (``MakeCredentialRequest/init(cbor:decoding:)``,
/// ``GetAssertionRequest/init(cbor:decoding:)``) read a parameter map.
package enum CTAPDecoding: Sendable {
    /// What an authenticator serves: every known key of its type, lengths checked.
    case strict
    /// What a key that forwards requests decides on (the virtual security key): a field of the
    /// wrong type reads as absent, lengths are not checked, list entries and credential
    /// parameters that do not parse are skipped, and a user entity without an `id` reads as an
    /// empty one. The parameter map itself and its required keys (with `rp.id`) must be there.
    case lenient
}

/// Typed access to the fields of a CTAP2 CBOR map: absent fields are `nil`; present fields of
/// the wrong type throw ``CTAPError/unexpectedType(field:)`` when ``decoding`` is strict and read
/// as absent when it is lenient. Unknown keys are ignored, as CTAP2 requires for forward
/// compatibility.
struct CTAPMapReader {
    let entries: [CBORMapEntry]
    let path: String
    let decoding: CTAPDecoding

    /// Reads `value` as a map; `path` names it in errors.
    init(_ value: CBORValue, path: String, decoding: CTAPDecoding = .strict) throws(CTAPError) {
        guard let entries = value.mapEntries else { throw .unexpectedType(field: path) }
        self.entries = entries
        self.path = path
        self.decoding = decoding
    }

    var isLenient: Bool { decoding == .lenient }

    /// A present field of the wrong type: an error when strict, absent when lenient.
    private func wrongType(_ name: String) throws(CTAPError) {
        if !isLenient { throw .unexpectedType(field: fieldPath(name)) }
    }

    func fieldPath(_ name: String) -> String { path.isEmpty ? name : path + "." + name }

    func value(_ key: CBORValue) -> CBORValue? {
        // CTAP keys are integers or texts: matching the case first skips comparing (and
        // retaining) the boxed values of every other entry.
        switch key {
        case .int(let wanted):
            for index in entries.indices {
                if case .int(wanted) = entries[index].key { return entries[index].value }
            }
            return nil
        case .text(let wanted):
            for index in entries.indices {
                if case .text(let text) = entries[index].key, text == wanted { return entries[index].value }
            }
            return nil
        default:
            return entries.first(where: { $0.key == key })?.value
        }
    }

    func required(_ key: CBORValue, _ name: String) throws(CTAPError) -> CBORValue {
        guard let value = value(key) else { throw .missingParameter(field: fieldPath(name)) }
        return value
    }

    func bytes(_ key: CBORValue, _ name: String) throws(CTAPError) -> [UInt8]? {
        guard let value = value(key) else { return nil }
        guard let bytes = value.bytesValue else {
            try wrongType(name)
            return nil
        }
        return bytes
    }

    func requiredBytes(_ key: CBORValue, _ name: String) throws(CTAPError) -> [UInt8] {
        guard let bytes = try bytes(key, name) else { throw .missingParameter(field: fieldPath(name)) }
        return bytes
    }

    func text(_ key: CBORValue, _ name: String) throws(CTAPError) -> String? {
        guard let value = value(key) else { return nil }
        guard let text = value.textValue else {
            try wrongType(name)
            return nil
        }
        return text
    }

    func requiredText(_ key: CBORValue, _ name: String) throws(CTAPError) -> String {
        guard let text = try text(key, name) else { throw .missingParameter(field: fieldPath(name)) }
        return text
    }

    func int(_ key: CBORValue, _ name: String) throws(CTAPError) -> Int64? {
        guard let value = value(key) else { return nil }
        guard let number = value.intValue else {
            try wrongType(name)
            return nil
        }
        return number
    }

    func requiredInt(_ key: CBORValue, _ name: String) throws(CTAPError) -> Int64 {
        guard let number = try int(key, name) else { throw .missingParameter(field: fieldPath(name)) }
        return number
    }

    /// An unsigned integer that fits `T`; a negative or too large value is an invalid parameter.
    func unsigned<T: FixedWidthInteger & UnsignedInteger>(_ key: CBORValue, _ name: String, as _: T.Type)
        throws(CTAPError) -> T?
    {
        guard let number = try int(key, name) else { return nil }
        guard let converted = T(exactly: number) else {
            if isLenient { return nil }
            throw .invalidParameter(field: fieldPath(name))
        }
        return converted
    }

    func bool(_ key: CBORValue, _ name: String) throws(CTAPError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard let flag = value.boolValue else {
            try wrongType(name)
            return nil
        }
        return flag
    }

    func array(_ key: CBORValue, _ name: String) throws(CTAPError) -> [CBORValue]? {
        guard let value = value(key) else { return nil }
        guard let elements = value.arrayValue else {
            try wrongType(name)
            return nil
        }
        return elements
    }

    func requiredArray(_ key: CBORValue, _ name: String) throws(CTAPError) -> [CBORValue] {
        guard let elements = try array(key, name) else { throw .missingParameter(field: fieldPath(name)) }
        return elements
    }

    /// An array whose every element is text.
    func textArray(_ key: CBORValue, _ name: String) throws(CTAPError) -> [String]? {
        guard let elements = try array(key, name) else { return nil }
        var texts: [String] = []
        for (index, element) in elements.enumerated() {
            guard let text = element.textValue else {
                if isLenient { continue }
                throw .unexpectedType(field: fieldPath("\(name)[\(index)]"))
            }
            texts.append(text)
        }
        return texts
    }

    /// A nested map, returned as a reader for it.
    func map(_ key: CBORValue, _ name: String) throws(CTAPError) -> CTAPMapReader? {
        guard let value = value(key) else { return nil }
        guard value.mapEntries != nil else {
            try wrongType(name)
            return nil
        }
        return try CTAPMapReader(value, path: fieldPath(name), decoding: decoding)
    }

    func requiredMap(_ key: CBORValue, _ name: String) throws(CTAPError) -> CTAPMapReader {
        guard let reader = try map(key, name) else { throw .missingParameter(field: fieldPath(name)) }
        return reader
    }

    /// The whole map value as given.
    var value: CBORValue { .map(entries) }
}

extension Array where Element == CBORMapEntry {
    /// Appends `key: value` when `value` is not `nil`.
    mutating func append(_ key: CBORValue, _ value: CBORValue?) {
        if let value { append(CBORMapEntry(key, value)) }
    }
}
