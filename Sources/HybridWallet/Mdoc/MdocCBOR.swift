/// The CBOR an mdoc uses (RFC 8949), which is wider than CTAP2's canonical subset that
/// `HybridCore`'s codec accepts: tags (24, encoded CBOR; 1004, full-date; 0, date-time), floats,
/// maps in issuer order. Items keep the exact bytes they were read from, because an mdoc's
/// digests and signatures cover those bytes: a presentation copies them, it never re-encodes them.
package indirect enum MdocCBOR: Hashable, Sendable {
    case unsigned(UInt64)
    /// A negative integer `-1 - n`, holding `n`.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([MdocCBOR])
    /// Entries in the order read or to be written.
    case map([(MdocCBOR, MdocCBOR)])
    case tag(UInt64, MdocCBOR)
    /// false, true, null, undefined, other simple values and floats: the item's own bytes.
    case simple([UInt8])
    /// Already-encoded bytes, written as they are (an issuer's item inside a presentation).
    case encoded([UInt8])

    package static let null = MdocCBOR.simple([0xf6])

    package static func == (lhs: MdocCBOR, rhs: MdocCBOR) -> Bool { lhs.encoded == rhs.encoded }
    package func hash(into hasher: inout Hasher) { hasher.combine(encoded) }

    /// A text-keyed map's value for `key`.
    package subscript(key: String) -> MdocCBOR? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.0 == .text(key) }?.1
    }

    /// A map's value for the integer `key`.
    package subscript(int key: Int64) -> MdocCBOR? {
        guard case .map(let entries) = self else { return nil }
        let wanted: MdocCBOR = key >= 0 ? .unsigned(UInt64(key)) : .negative(UInt64(-1 - key))
        return entries.first { $0.0 == wanted }?.1
    }

    /// The bytes, if this is a byte string.
    package var bytesValue: [UInt8]? { if case .bytes(let bytes) = self { bytes } else { nil } }
    /// The text, if this is a text string.
    package var textValue: String? { if case .text(let text) = self { text } else { nil } }
    /// The elements, if this is an array.
    package var arrayValue: [MdocCBOR]? { if case .array(let elements) = self { elements } else { nil } }
    /// The bytes inside a tag-24 item (`#6.24(bstr .cbor …)`, "encoded CBOR data item").
    package var embeddedCBOR: [UInt8]? { if case .tag(24, .bytes(let bytes)) = self { bytes } else { nil } }

    /// The item as JSON, for DCQL `values` matching (OpenID4VP 1.0 §6.3, RFC 8949 §6.1), where
    /// the conversion is clear: text, integers in range, booleans.
    package var jsonValue: JSONItem? {
        switch self {
        case .text(let text): return .string(text)
        case .unsigned(let n) where n <= UInt64(Int64.max): return .integer(Int64(n))
        case .negative(let n) where n < UInt64(Int64.max): return .integer(-1 - Int64(n))
        case .simple([0xf4]): return .bool(false)
        case .simple([0xf5]): return .bool(true)
        case .tag(_, let inner): return inner.jsonValue
        default: return nil
        }
    }
}

extension MdocCBOR {
    /// The definite-length encoding, maps in their given order.
    package var encoded: [UInt8] {
        var out: [UInt8] = []
        append(to: &out)
        return out
    }

    private func append(to out: inout [UInt8]) {
        switch self {
        case .unsigned(let n): Self.head(0, n, &out)
        case .negative(let n): Self.head(1, n, &out)
        case .bytes(let bytes):
            Self.head(2, UInt64(bytes.count), &out)
            out += bytes
        case .text(let text):
            Self.head(3, UInt64(text.utf8.count), &out)
            out += Array(text.utf8)
        case .array(let elements):
            Self.head(4, UInt64(elements.count), &out)
            for element in elements { element.append(to: &out) }
        case .map(let entries):
            Self.head(5, UInt64(entries.count), &out)
            for (key, value) in entries {
                key.append(to: &out)
                value.append(to: &out)
            }
        case .tag(let number, let inner):
            Self.head(6, number, &out)
            inner.append(to: &out)
        case .simple(let bytes), .encoded(let bytes):
            out += bytes
        }
    }

    private static func head(_ major: UInt8, _ argument: UInt64, _ out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: out.append(type | UInt8(argument))
        case 24...0xff: out += [type | 24, UInt8(argument)]
        case 0x100...0xffff:
            out += [type | 25] + (0..<2).reversed().map { UInt8(truncatingIfNeeded: argument >> ($0 * 8)) }
        case 0x1_0000...0xffff_ffff:
            out += [type | 26] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: argument >> ($0 * 8)) }
        default: out += [type | 27] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: argument >> ($0 * 8)) }
        }
    }
}
