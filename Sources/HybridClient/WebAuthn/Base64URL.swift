import Foundation

/// Base64url without padding (RFC 4648 §5), the encoding of every binary field in WebAuthn JSON.
public enum Base64URL {
    /// Encodes bytes as unpadded base64url.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Decodes base64url. Trailing `=` padding is tolerated; the standard alphabet's `+` and `/`,
    /// white space and any other character are not. Returns `nil` for invalid input.
    public static func decode(_ text: String) -> [UInt8]? {
        var body = Substring(text)
        while body.hasSuffix("=") { body.removeLast() }
        // Padding, if present, must be what the length calls for.
        if body.count != text.count, (body.count + (text.count - body.count)) % 4 != 0 { return nil }
        guard body.utf8.allSatisfy(isAlphabet) else { return nil }
        // A single leftover character cannot encode a whole byte.
        if body.utf8.count % 4 == 1 { return nil }
        var standard = body.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: standard) else { return nil }
        return [UInt8](data)
    }

    private static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
