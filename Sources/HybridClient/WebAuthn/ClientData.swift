import Crypto
import HybridCore

/// `CollectedClientData` serialized the way browsers do (WebAuthn L3 §5.8.1.1, the "limited
/// verification" compatible serialization): exactly the members `type`, `challenge`, `origin`,
/// `crossOrigin`, in that order, with `CCDToString` string escaping and no white space.
package struct ClientData: Sendable, Hashable {
    /// `webauthn.create` or `webauthn.get`.
    package enum Ceremony: String, Sendable, Hashable {
        case create = "webauthn.create"
        case get = "webauthn.get"
    }

    /// `webauthn.create` or `webauthn.get`.
    package var ceremony: Ceremony
    /// The raw challenge; serialized as base64url.
    package var challenge: [UInt8]
    /// The caller's origin.
    package var origin: WebOrigin

    /// Client data for `ceremony` with this challenge and origin.
    package init(ceremony: Ceremony, challenge: [UInt8], origin: WebOrigin) {
        self.ceremony = ceremony
        self.challenge = challenge
        self.origin = origin
    }

    /// The clientDataJSON bytes, as handed to the relying party.
    package var json: [UInt8] {
        var result = Array(#"{"type":"#.utf8)
        result += Self.ccdString(ceremony.rawValue)
        result += Array(#","challenge":"#.utf8)
        result += Self.ccdString(Base64URL.encode(challenge))
        result += Array(#","origin":"#.utf8)
        result += Self.ccdString(origin.serialization)
        result += Array(#","crossOrigin":false}"#.utf8)
        return result
    }

    /// SHA-256 of ``json``: the `clientDataHash` sent to the authenticator.
    package var hash: [UInt8] { Array(SHA256.hash(data: json)) }

    /// `CCDToString` (WebAuthn L3 §5.8.1.2): a JSON string where only `"`, `\` and code points below
    /// U+0020 are escaped, the latter as `\u` and four lower-case hex digits.
    static func ccdString(_ text: String) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(scalar.value >> 4)], hex[Int(scalar.value & 0xF)]]
            default:
                out += Array(String(scalar).utf8)
            }
        }
        out.append(UInt8(ascii: "\""))
        return out
    }
}
