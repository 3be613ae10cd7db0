/// The base-10 encoding of the bytes behind a `FIDO:/` QR code (protocol.md §1.2).
///
/// Bytes are split into 7-byte chunks. Each chunk is read as a little-endian integer and printed in
/// decimal, zero-padded to 17 digits; a final chunk of n = 1…6 bytes is padded to W(n) digits, the
/// number of decimal digits of 2^(8n) − 1. Chromium: `qr::BytesToDigits` / `qr::DigitsToBytes`.
package enum DigitEncoding {
    /// Bytes per full chunk.
    package static let chunkByteCount = 7
    /// Digits per full chunk.
    package static let chunkDigitCount = 17

    /// W(n): digits used for a chunk of n = 0…7 bytes.
    private static let digitCounts = [0, 3, 5, 8, 10, 13, 15, 17]

    /// Encodes `bytes` as a string of ASCII digits.
    ///
    /// - Parameter bytes: Any number of bytes, including none.
    /// - Returns: 17·⌊L/7⌋ + W(L mod 7) digits.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity(input.count / chunkByteCount * chunkDigitCount + chunkDigitCount)
        var start = 0
        while start < input.count {
            let end = min(start + chunkByteCount, input.count)
            var value: UInt64 = 0
            for index in stride(from: end - 1, through: start, by: -1) {
                value = value << 8 | UInt64(input[index])
            }
            appendDecimal(value, width: digitCounts[end - start], to: &out)
            start = end
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes a string of ASCII digits back to bytes.
    ///
    /// Checks, in order: every character is `0`–`9`; the length modulo 17 is an allowed width;
    /// every chunk's value fits its byte count.
    ///
    /// - Parameter digits: The text after the `FIDO:/` prefix.
    /// - Returns: The encoded bytes.
    /// - Throws: ``DigitEncodingError``.
    package static func decode(_ digits: some StringProtocol) throws(DigitEncodingError) -> [UInt8] {
        let characters = Array(digits.utf8)
        let zero = UInt8(ascii: "0")
        for character in characters where character &- zero > 9 {
            throw .nonDigit
        }
        let remainder = characters.count % chunkDigitCount
        guard let tailByteCount = digitCounts.firstIndex(of: remainder) else {
            throw .invalidLength(characters.count)
        }
        var out: [UInt8] = []
        out.reserveCapacity(characters.count / chunkDigitCount * chunkByteCount + tailByteCount)
        var start = 0
        while start < characters.count {
            let width = min(chunkDigitCount, characters.count - start)
            let byteCount = width == chunkDigitCount ? chunkByteCount : tailByteCount
            var value: UInt64 = 0
            for character in characters[start..<(start + width)] {
                value = value * 10 + UInt64(character - zero)  // ≤ 17 digits: below 10^17 < 2^64
            }
            guard value >> (8 * UInt64(byteCount)) == 0 else { throw .chunkOutOfRange }
            for shift in 0..<byteCount {
                out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(shift))))
            }
            start += width
        }
        return out
    }

    private static func appendDecimal(_ value: UInt64, width: Int, to out: inout [UInt8]) {
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: width)
        var rest = value
        var index = width - 1
        while rest > 0 && index >= 0 {
            digits[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            index -= 1
        }
        out.append(contentsOf: digits)
    }
}
