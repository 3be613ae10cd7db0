/// A D-Bus value with its type (D-Bus specification, "Type System"), as read from or written to a
/// message. Only what the org.bluez API needs; unix file descriptors are not supported.
package indirect enum DBusValue: Equatable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// `ay`, kept as bytes.
    case bytes([UInt8])
    /// `a<element>` other than `ay` and dictionaries. `elementSignature` is needed for empty arrays.
    case array(elementSignature: String, [DBusValue])
    /// `a{<key><value>}`.
    case dictionary(keySignature: String, valueSignature: String, [DBusDictEntry])
    case structure([DBusValue])
    case variant(DBusValue)

    /// The value's type signature, e.g. `a{sv}`.
    package var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .bytes: "ay"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// `a{sv}` from string keys, each value wrapped in a variant.
    package static func stringVariantDictionary(_ entries: [(String, DBusValue)]) -> DBusValue {
        .dictionary(
            keySignature: "s",
            valueSignature: "v",
            entries.map { DBusDictEntry(key: .string($0.0), value: .variant($0.1)) }
        )
    }

    /// The payload of a variant, or the value itself.
    package var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    package var string: String? {
        switch unwrapped {
        case .string(let value), .objectPath(let value): value
        default: nil
        }
    }

    package var bool: Bool? {
        if case .boolean(let value) = unwrapped { return value }
        return nil
    }

    /// Entries of a dictionary with string or object-path keys (values as stored, variants kept).
    package var stringKeyedEntries: [String: DBusValue]? {
        guard case .dictionary(_, _, let entries) = unwrapped else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.string else { return nil }
            result[key] = entry.value
        }
        return result
    }
}

/// One `{key value}` pair of a D-Bus dictionary.
package struct DBusDictEntry: Equatable, Sendable {
    package var key: DBusValue
    package var value: DBusValue
}
