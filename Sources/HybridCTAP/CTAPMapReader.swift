import HybridCore

/// Typed, strict access to the fields of a CTAP2 CBOR map: absent fields are `nil`, present
/// fields of the wrong type throw ``CTAPError/unexpectedType(field:)``. Unknown keys are ignored,
/// as CTAP2 requires for forward compatibility.
struct CTAPMapReader {
    let entries: [CBORMapEntry]
    let path: String

    /// Reads `value` as a map; `path` names it in errors.
    init(_ value: CBORValue, path: String) throws(CTAPError) {
        guard let entries = value.mapEntries else { throw .unexpectedType(field: path) }
        self.entries = entries
        self.path = path
    }

    func fieldPath(_ name: String) -> String { path.isEmpty ? name : path + "." + name }

    func value(_ key: CBORValue) -> CBORValue? { entries.first(where: { $0.key == key })?.value }

    func required(_ key: CBORValue, _ name: String) throws(CTAPError) -> CBORValue {
        guard let value = value(key) else { throw .missingParameter(field: fieldPath(name)) }
        return value
    }

    func bytes(_ key: CBORValue, _ name: String) throws(CTAPError) -> [UInt8]? {
        guard let value = value(key) else { return nil }
        guard let bytes = value.bytesValue else { throw .unexpectedType(field: fieldPath(name)) }
        return bytes
    }

    func requiredBytes(_ key: CBORValue, _ name: String) throws(CTAPError) -> [UInt8] {
        guard let bytes = try bytes(key, name) else { throw .missingParameter(field: fieldPath(name)) }
        return bytes
    }

    func text(_ key: CBORValue, _ name: String) throws(CTAPError) -> String? {
        guard let value = value(key) else { return nil }
        guard let text = value.textValue else { throw .unexpectedType(field: fieldPath(name)) }
        return text
    }

    func requiredText(_ key: CBORValue, _ name: String) throws(CTAPError) -> String {
        guard let text = try text(key, name) else { throw .missingParameter(field: fieldPath(name)) }
        return text
    }

    func int(_ key: CBORValue, _ name: String) throws(CTAPError) -> Int64? {
        guard let value = value(key) else { return nil }
        guard let number = value.intValue else { throw .unexpectedType(field: fieldPath(name)) }
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
        guard let converted = T(exactly: number) else { throw .invalidParameter(field: fieldPath(name)) }
        return converted
    }

    func bool(_ key: CBORValue, _ name: String) throws(CTAPError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard let flag = value.boolValue else { throw .unexpectedType(field: fieldPath(name)) }
        return flag
    }

    func array(_ key: CBORValue, _ name: String) throws(CTAPError) -> [CBORValue]? {
        guard let value = value(key) else { return nil }
        guard let elements = value.arrayValue else { throw .unexpectedType(field: fieldPath(name)) }
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
            guard let text = element.textValue else { throw .unexpectedType(field: fieldPath("\(name)[\(index)]")) }
            texts.append(text)
        }
        return texts
    }

    /// A nested map, returned as a reader for it.
    func map(_ key: CBORValue, _ name: String) throws(CTAPError) -> CTAPMapReader? {
        guard let value = value(key) else { return nil }
        return try CTAPMapReader(value, path: fieldPath(name))
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
