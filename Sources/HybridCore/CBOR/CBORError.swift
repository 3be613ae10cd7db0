/// Why bytes are not one strict, canonical CBOR item (protocol.md §0.2, SCHEMA.md §4.14).
public enum CBORError: Error, Hashable, Sendable {
    /// The input ends inside an item (or is empty).
    case truncated
    /// Bytes follow the single top-level item.
    case trailingBytes
    /// An integer, length or count is not in its shortest form.
    case nonMinimal
    /// An indefinite length, or a lone break byte.
    case indefiniteLength
    /// Additional information 28–30, which CBOR reserves.
    case reservedAdditionalInformation
    /// A tag (major type 6); canonical CTAP2 CBOR has none.
    case tag
    /// A floating-point number; canonical CTAP2 CBOR has none.
    case float
    /// A simple value other than `false`, `true`, `null` and `undefined`.
    case simpleValue
    /// Map keys are not in canonical order.
    case unsortedKeys
    /// A map has the same key twice.
    case duplicateKey
    /// A map key is not an integer, a byte string or a text string.
    case invalidKeyType
    /// A text string is not valid UTF-8 (or holds a Unicode noncharacter).
    case invalidUTF8
    /// An integer outside the `Int64` range.
    case integerOutOfRange
    /// Items nested deeper than `CBORDecoder/maximumDepth`.
    case nestingTooDeep
}
