/// Base64url (RFC 4648 §5) without padding, as used for contact IDs in `/cable/contact/…`.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes `bytes` as base64url with no `=` padding.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = iterator.next()
            let group = UInt32(b0) << 16 | UInt32(b1 ?? 0) << 8 | UInt32(b2 ?? 0)
            out.append(alphabet[Int(group >> 18 & 63)])
            out.append(alphabet[Int(group >> 12 & 63)])
            if b1 != nil { out.append(alphabet[Int(group >> 6 & 63)]) }
            if b2 != nil { out.append(alphabet[Int(group & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes canonical unpadded base64url: only `A–Z a–z 0–9 - _`, no `=`, no length ≡ 1 (mod 4),
    /// and unused low bits of the last character zero. Returns `nil` otherwise.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in utf8 {
            guard let value = sextet(character) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        guard accumulator == 0 else { return nil }  // non-canonical trailing bits
        return out
    }

    private static func sextet(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}
