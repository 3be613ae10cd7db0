import Crypto
import HybridCore

/// One SD-JWT Disclosure (RFC 9901 §4.2): the base64url of a JSON array `[salt, name, value]` for
/// an object property, or `[salt, value]` for an array element.
package struct Disclosure: Hashable, Sendable {
    /// The disclosure as it appears between `~` separators.
    package let encoded: String
    /// The claim name, or `nil` for an array element.
    package let name: String?
    /// The claim value.
    package let value: JSONItem
    /// base64url(SHA-256(ASCII(encoded))): the digest the issuer put in `_sd` or `{"...": …}`
    /// (RFC 9901 §4.2.3: over the base64url text, not the bytes it decodes to).
    package let digest: String

    /// Longest disclosure accepted, in characters.
    package static let maximumLength = 16 << 10

    /// Decodes and checks one disclosure (RFC 9901 §7.1 step 3): a salt string, a claim name that
    /// is a string other than `_sd` and `...`, and a value.
    package init(encoded: String) throws(WalletError) {
        guard encoded.utf8.count <= Self.maximumLength, let bytes = Base64URL.decode(encoded),
            let json = try? JSONItem.parse(bytes, limit: Self.maximumLength), let array = json.arrayValue,
            array.first?.stringValue != nil
        else { throw .invalidCredential("a disclosure is not base64url of a JSON array with a salt") }
        switch array.count {
        case 3:
            guard let name = array[1].stringValue, name != "_sd", name != "..." else {
                throw .invalidCredential("a disclosure has an invalid claim name")
            }
            (self.name, value) = (name, array[2])
        case 2:
            (self.name, value) = (nil, array[1])
        default:
            throw .invalidCredential("a disclosure has \(array.count) elements")
        }
        self.encoded = encoded
        digest = Self.digest(of: encoded)
    }

    /// The SHA-256 digest of a disclosure's text (RFC 9901 §4.2.3).
    package static func digest(of encoded: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Array(encoded.utf8))))
    }
}
