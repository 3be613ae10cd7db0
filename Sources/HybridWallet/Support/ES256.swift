import Crypto
import Foundation
import HybridCore

/// ES256 compact JWS (RFC 7515 §7.1, RFC 7518 §3.4): the signature is the raw `r ‖ s`, 64 bytes.
package enum ES256 {
    /// `BASE64URL(header) '.' BASE64URL(payload) '.' BASE64URL(signature)` with `key`.
    package static func compactJWS(header: JSONItem, payload: JSONItem, key: P256.Signing.PrivateKey) -> String {
        let signingInput = Base64URL.encode(header.encodedBytes) + "." + Base64URL.encode(payload.encodedBytes)
        // Signing over a P-256 key in memory does not fail.
        let signature = (try? key.signature(for: Array(signingInput.utf8)).rawRepresentation) ?? Data()
        return signingInput + "." + Base64URL.encode(signature)
    }
}

/// The public JWK of a P-256 key (RFC 7517, RFC 7518 §6.2.1): `{"kty": "EC", "crv": "P-256", "x", "y"}`.
package struct P256PublicJWK: Hashable, Sendable {
    /// The key.
    package let key: P256.Signing.PublicKey

    /// The JWK of `key`.
    package init(_ key: P256.Signing.PublicKey) { self.key = key }

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.key.x963Representation == rhs.key.x963Representation }
    package func hash(into hasher: inout Hasher) { hasher.combine(key.x963Representation) }

    /// Reads a JWK object; only `kty` EC, `crv` P-256, 32-byte `x` and `y` on the curve are accepted.
    package init(json: JSONItem) throws(WalletError) {
        guard json["kty"] == .string("EC"), json["crv"] == .string("P-256"),
            let x = json["x"]?.stringValue.flatMap(Base64URL.decode), x.count == 32,
            let y = json["y"]?.stringValue.flatMap(Base64URL.decode), y.count == 32,
            let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y)
        else { throw .invalidCredential("the key is not a P-256 JWK") }
        self.key = key
    }

    /// The JWK members.
    package var json: JSONItem {
        let point = Array(key.x963Representation)
        return .object([
            "kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode(point[1...32])),
            "y": .string(Base64URL.encode(point[33...64])),
        ])
    }

    /// The JWK SHA-256 thumbprint (RFC 7638 §3): SHA-256 of the required members in lexicographic
    /// order with no whitespace.
    package var thumbprint: [UInt8] {
        let point = Array(key.x963Representation)
        let text =
            #"{"crv":"P-256","kty":"EC","x":""# + Base64URL.encode(point[1...32]) + #"","y":""#
            + Base64URL.encode(point[33...64]) + #""}"#
        return Array(SHA256.hash(data: Array(text.utf8)))
    }
}

extension JSONItem: ExpressibleByStringLiteral {
    package init(stringLiteral value: String) { self = .string(value) }
}
