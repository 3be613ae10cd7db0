/// Writes CTAP2 canonical CBOR: shortest forms, definite lengths, and map keys sorted by major
/// type, then encoded length, then bytewise. Chromium: `cbor::Writer`.
package enum CBOREncoder {
    /// The canonical encoding of `value`.
    ///
    /// Maps with duplicate keys are a programming error: the encoder keeps the first entry of each
    /// key, so it never emits bytes a strict decoder rejects.
    package static func encode(_ value: CBORValue) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out)
        return out
    }

    private static func append(_ value: CBORValue, to out: inout [UInt8]) {
        switch value {
        case .int(let number):
            if number >= 0 {
                appendHead(major: 0, argument: UInt64(number), to: &out)
            } else {
                appendHead(major: 1, argument: UInt64(-1 - number), to: &out)
            }
        case .bytes(let bytes):
            appendHead(major: 2, argument: UInt64(bytes.count), to: &out)
            out += bytes
        case .text(let text):
            let utf8 = Array(text.utf8)
            appendHead(major: 3, argument: UInt64(utf8.count), to: &out)
            out += utf8
        case .array(let elements):
            appendHead(major: 4, argument: UInt64(elements.count), to: &out)
            for element in elements { append(element, to: &out) }
        case .map(let entries):
            var encoded: [(key: [UInt8], value: CBORValue)] = []
            encoded.reserveCapacity(entries.count)
            for entry in entries {
                let key = encode(entry.key)
                if !encoded.contains(where: { $0.key == key }) { encoded.append((key, entry.value)) }
            }
            encoded.sort { canonicalKeyOrder($0.key, $1.key) }
            appendHead(major: 5, argument: UInt64(encoded.count), to: &out)
            for (key, value) in encoded {
                out += key
                append(value, to: &out)
            }
        case .bool(let flag):
            out.append(flag ? 0xf5 : 0xf4)
        case .null:
            out.append(0xf6)
        case .undefined:
            out.append(0xf7)
        }
    }

    /// Writes a major type and its argument in the shortest form.
    static func appendHead(major: UInt8, argument: UInt64, to out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24:
            out.append(type | UInt8(argument))
        case 24...0xff:
            out += [type | 24, UInt8(argument)]
        case 0x100...0xffff:
            out += [type | 25, UInt8(argument >> 8), UInt8(argument & 0xff)]
        case 0x1_0000...0xffff_ffff:
            out.append(type | 26)
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8((argument >> UInt64(shift)) & 0xff)) }
        default:
            out.append(type | 27)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((argument >> UInt64(shift)) & 0xff)) }
        }
    }

    /// CTAP2 canonical key order on encoded keys: major type, then length, then bytewise.
    static func canonicalKeyOrder(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let majorA = a.first.map { $0 >> 5 } ?? 0
        let majorB = b.first.map { $0 >> 5 } ?? 0
        if majorA != majorB { return majorA < majorB }
        if a.count != b.count { return a.count < b.count }
        return a.lexicographicallyPrecedes(b)
    }
}
