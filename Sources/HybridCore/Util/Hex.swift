/// Lower-case hexadecimal encoding and strict decoding of byte strings.
///
/// Used for URLs and headers (where the protocol writes upper-case hex) and by tests and the
/// conformance runner, which read vector files whose byte strings are lower-case hex.
package enum Hex {
    /// Errors from ``decode(_:)``.
    package enum DecodingError: Error, Equatable, Sendable {
        /// The string has an odd number of characters.
        case oddLength
        /// A character is not `0-9`, `a-f` or `A-F`.
        case invalidCharacter
    }

    /// Encodes `bytes` as hexadecimal, lower case unless `uppercase` is set.
    package static func encode<Bytes: Sequence>(_ bytes: Bytes, uppercase: Bool = false) -> String
    where Bytes.Element == UInt8 {
        let digits: [UInt8] = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes hexadecimal in either case. Throws ``DecodingError`` on anything else.
    package static func decode<S: StringProtocol>(_ text: S) throws(DecodingError) -> [UInt8] {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { throw .oddLength }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else {
                throw .invalidCharacter
            }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
