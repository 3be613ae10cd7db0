/// A strict CBOR reader: it accepts exactly the canonical CTAP2 encoding that ``CBOREncoder``
/// writes and rejects everything else with a ``CBORError``. Chromium: `cbor::Reader`.
///
/// Rejected: truncated input, trailing bytes, non-minimal heads, indefinite lengths, tags,
/// floats, simple values other than false/true/null/undefined, unsorted or duplicate map keys,
/// map keys other than integers, text and byte strings (Chromium sends byte-string keys in the
/// prf extension's `evalByCredential`, and its reader accepts them), invalid UTF-8, integers outside `Int64`, and nesting
/// deeper than ``maximumDepth``. Declared lengths are checked against the remaining input before
/// anything is allocated.
package enum CBORDecoder {
    /// The deepest nesting level accepted below the top-level item (Chromium: 16).
    package static let maximumDepth = 16

    /// Decodes `bytes`, which must hold exactly one item.
    package static func decode(_ bytes: some Collection<UInt8>) throws(CBORError) -> CBORValue {
        try decode(bytes, mapKeys: .canonicalOrder)
    }

    /// What a decode accepts for the order of map keys.
    package enum MapKeyOrder: Sendable {
        /// Canonical CTAP2 order, as everywhere in the protocol (the default).
        case canonicalOrder
        /// Any order (duplicates are still rejected). Only for requests from hosts known to
        /// write maps out of order, e.g. Firefox (authenticator-rs serialises its getAssertion
        /// options struct as `{"uv", "up"}`); what is decoded this way is re-encoded
        /// canonically before it goes anywhere. Every other deviation is still rejected.
        case anyOrder
    }

    /// Decodes `bytes`, which must hold exactly one item, accepting map keys in the given order.
    package static func decode(_ bytes: some Collection<UInt8>, mapKeys: MapKeyOrder) throws(CBORError) -> CBORValue {
        var reader = Reader(bytes: Array(bytes), requireSortedKeys: mapKeys == .canonicalOrder)
        let value = try reader.readItem(depth: 0)
        guard reader.isAtEnd else { throw .trailingBytes }
        return value
    }

    /// Decodes the single item at the start of `bytes` and returns it with the number of bytes it
    /// occupies; whatever follows is not examined.
    package static func decodePrefix(_ bytes: some Collection<UInt8>) throws(CBORError) -> (
        value: CBORValue, length: Int
    ) {
        var reader = Reader(bytes: Array(bytes))
        let value = try reader.readItem(depth: 0)
        return (value, reader.offset)
    }
}

private struct Reader {
    let bytes: [UInt8]
    /// False only for ``CBORDecoder/MapKeyOrder/anyOrder``.
    let requireSortedKeys: Bool
    var offset = 0

    init(bytes: [UInt8], requireSortedKeys: Bool = true) {
        self.bytes = bytes
        self.requireSortedKeys = requireSortedKeys
    }

    var isAtEnd: Bool { offset == bytes.count }
    var remaining: Int { bytes.count - offset }

    mutating func readByte() throws(CBORError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func readBytes(_ count: UInt64) throws(CBORError) -> ArraySlice<UInt8> {
        guard count <= UInt64(remaining) else { throw .truncated }
        let end = offset + Int(count)
        defer { offset = end }
        return bytes[offset..<end]
    }

    /// Reads the argument that follows an initial byte with additional information `info` (< 28).
    mutating func readArgument(_ info: UInt8) throws(CBORError) -> UInt64 {
        let width: Int
        switch info {
        case 0..<24: return UInt64(info)
        case 24: width = 1
        case 25: width = 2
        case 26: width = 4
        case 27: width = 8
        case 28...30: throw .reservedAdditionalInformation
        default: throw .indefiniteLength
        }
        var value: UInt64 = 0
        for byte in try readBytes(UInt64(width)) { value = value << 8 | UInt64(byte) }
        let minimum: UInt64 = width == 1 ? 24 : 1 << UInt64(4 * width)  // 24, 2^8, 2^16, 2^32
        guard value >= minimum else { throw .nonMinimal }
        return value
    }

    mutating func readItem(depth: Int) throws(CBORError) -> CBORValue {
        guard depth <= CBORDecoder.maximumDepth else { throw .nestingTooDeep }
        let initial = try readByte()
        let major = initial >> 5
        let info = initial & 0x1f
        switch major {
        case 0:
            let argument = try readArgument(info)
            guard argument <= UInt64(Int64.max) else { throw .integerOutOfRange }
            return .int(Int64(argument))
        case 1:
            let argument = try readArgument(info)
            guard argument <= UInt64(Int64.max) else { throw .integerOutOfRange }
            return .int(-1 - Int64(argument))
        case 2:
            return .bytes(Array(try readBytes(try readArgument(info))))
        case 3:
            return .text(try Self.validatedText(try readBytes(try readArgument(info))))
        case 4:
            let count = try readArgument(info)
            guard count <= UInt64(remaining) else { throw .truncated }
            var elements: [CBORValue] = []
            elements.reserveCapacity(Int(count))
            for _ in 0..<count { elements.append(try readItem(depth: depth + 1)) }
            return .array(elements)
        case 5:
            return .map(try readMapEntries(count: try readArgument(info), depth: depth))
        case 6:
            throw .tag
        default:
            return try readSimple(info)
        }
    }

    mutating func readMapEntries(count: UInt64, depth: Int) throws(CBORError) -> [CBORMapEntry] {
        guard count <= UInt64(remaining / 2) else { throw .truncated }
        var entries: [CBORMapEntry] = []
        entries.reserveCapacity(Int(count))
        var previousKey: ArraySlice<UInt8>? = nil
        // Unsorted maps: every key seen, to reject duplicates without relying on order.
        var seenKeys: Set<ArraySlice<UInt8>> = []
        for _ in 0..<count {
            let keyStart = offset
            let key = try readItem(depth: depth + 1)
            switch key {
            // Byte-string keys: Chromium's reader takes them, and prf's evalByCredential needs them.
            case .int, .bytes, .text: break
            default: throw .invalidKeyType
            }
            let encodedKey = bytes[keyStart..<offset]
            if !requireSortedKeys {
                guard seenKeys.insert(encodedKey).inserted else { throw .duplicateKey }
            } else if let previousKey {
                if previousKey.elementsEqual(encodedKey) { throw .duplicateKey }
                guard CBOREncoder.canonicalKeyOrder(Array(previousKey), Array(encodedKey)) else { throw .unsortedKeys }
            }
            previousKey = encodedKey
            entries.append(CBORMapEntry(key, try readItem(depth: depth + 1)))
        }
        return entries
    }

    mutating func readSimple(_ info: UInt8) throws(CBORError) -> CBORValue {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 25...27: throw .float
        case 28...30: throw .reservedAdditionalInformation
        case 31: throw .indefiniteLength
        default: throw .simpleValue
        }
    }

    /// Strict UTF-8 that also rejects Unicode noncharacters, as Chromium's reader does.
    static func validatedText(_ utf8: ArraySlice<UInt8>) throws(CBORError) -> String {
        guard let text = String(validating: utf8, as: UTF8.self) else { throw .invalidUTF8 }
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if (0xFDD0...0xFDEF).contains(value) || value & 0xFFFE == 0xFFFE { throw .invalidUTF8 }
        }
        return text
    }
}
