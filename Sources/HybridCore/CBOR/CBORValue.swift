/// One CBOR data item, restricted to what CTAP2 and the hybrid transport use.
///
/// Integers are limited to the `Int64` range, as in Chromium's `components/cbor`. Maps keep their
/// entries in order; `CBOREncoder` sorts them canonically when it writes them.
public indirect enum CBORValue: Hashable, Sendable {
    /// An integer (major types 0 and 1).
    case int(Int64)
    /// A byte string (major type 2).
    case bytes([UInt8])
    /// A UTF-8 text string (major type 3).
    case text(String)
    /// An array (major type 4).
    case array([CBORValue])
    /// A map (major type 5), as ordered key–value pairs.
    case map([CBORMapEntry])
    /// `false` or `true` (simple values 20 and 21).
    case bool(Bool)
    /// `null` (simple value 22).
    case null
    /// `undefined` (simple value 23).
    case undefined
}

/// One key–value pair of a `CBORValue/map(_:)`.
public struct CBORMapEntry: Hashable, Sendable {
    /// The key.
    public var key: CBORValue
    /// The value.
    public var value: CBORValue

    /// An entry from its key and value.
    public init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}

extension CBORValue {
    /// A map from pairs, in the given order (the encoder sorts them).
    public static func map(_ pairs: KeyValuePairs<CBORValue, CBORValue>) -> CBORValue {
        .map(pairs.map { CBORMapEntry($0.key, $0.value) })
    }

    /// The integer, if this is one.
    public var intValue: Int64? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// The bytes, if this is a byte string.
    public var bytesValue: [UInt8]? {
        if case .bytes(let value) = self { return value }
        return nil
    }

    /// The text, if this is a text string.
    public var textValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The boolean, if this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [CBORValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The entries, if this is a map.
    public var mapEntries: [CBORMapEntry]? {
        if case .map(let value) = self { return value }
        return nil
    }

    /// The value stored under `key` if this is a map that has it.
    public subscript(key: CBORValue) -> CBORValue? {
        mapEntries?.first(where: { $0.key == key })?.value
    }

    /// The value stored under the integer `key` if this is a map that has it.
    public subscript(intKey key: Int64) -> CBORValue? { self[.int(key)] }

    /// The value stored under the text `key` if this is a map that has it.
    public subscript(textKey key: String) -> CBORValue? { self[.text(key)] }
}

extension CBORValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// An integer literal as `.int`.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A string literal as `.text`.
    public init(stringLiteral value: String) { self = .text(value) }
    /// A boolean literal as `.bool`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array literal as `.array`.
    public init(arrayLiteral elements: CBORValue...) { self = .array(elements) }
    /// A dictionary literal as `.map`, in the order written.
    public init(dictionaryLiteral elements: (CBORValue, CBORValue)...) {
        self = .map(elements.map { CBORMapEntry($0.0, $0.1) })
    }
}
