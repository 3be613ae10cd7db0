import Crypto
import Foundation
import HybridCore

/// Builds an SD-JWT presentation with key binding (RFC 9901 §4.3, §7.3):
/// `<issuer JWT>~<selected disclosures>~<KB-JWT>`.
///
/// The KB-JWT (RFC 9901 §4.3) has header `{"alg": "ES256", "typ": "kb+jwt"}` and payload
/// `{"iat", "aud", "nonce", "sd_hash"}`, signed with the device key the credential's `cnf.jwk`
/// names. `sd_hash` is base64url(SHA-256) of the presentation up to and including the `~` after
/// the last disclosure (§4.3.1). Over the Digital Credentials API the audience is the verifier's
/// origin prefixed with `origin:` (OpenID4VP 1.0 Appendix A.4), and `nonce` is the request's.
package enum SDJWTPresentation {
    /// The presentation of `credential` revealing the disclosures at `disclosureIndices` only.
    /// - Parameters:
    ///   - audience: the KB-JWT `aud`, `origin:<origin>` over the DC API.
    ///   - nonce: the request's `nonce`.
    ///   - issuedAt: the KB-JWT `iat`.
    ///   - deviceKey: the key `cnf.jwk` names (the caller checks they match).
    package static func present(
        _ credential: SDJWTCredential, disclosureIndices: Set<Int>, audience: String, nonce: String,
        issuedAt: Date, deviceKey: DeviceKey
    ) -> String {
        keyBound(
            disclosedPart(credential, disclosureIndices: disclosureIndices), audience: audience, nonce: nonce,
            issuedAt: issuedAt, deviceKey: deviceKey)
    }

    /// The part of the presentation before the KB-JWT: `<issuer JWT>~<selected disclosures>~`,
    /// the disclosures in stored order.
    package static func disclosedPart(_ credential: SDJWTCredential, disclosureIndices: Set<Int>) -> String {
        let selected = credential.disclosures.indices.filter(disclosureIndices.contains).map {
            credential.disclosures[$0].encoded
        }
        return ([credential.issuerJWT] + selected).joined(separator: "~") + "~"
    }

    /// `presented` (a ``disclosedPart(_:disclosureIndices:)``) with its KB-JWT appended.
    package static func keyBound(
        _ presented: String, audience: String, nonce: String, issuedAt: Date, deviceKey: DeviceKey
    ) -> String {
        let sdHash = Base64URL.encode(Array(SHA256.hash(data: Array(presented.utf8))))
        let keyBinding = ES256.compactJWS(
            header: .object(["alg": "ES256", "typ": "kb+jwt"]),
            payload: .object([
                "iat": .integer(Int64(issuedAt.timeIntervalSince1970.rounded(.down))), "aud": .string(audience),
                "nonce": .string(nonce), "sd_hash": .string(sdHash),
            ]),
            key: deviceKey.privateKey)
        return presented + keyBinding
    }
}
