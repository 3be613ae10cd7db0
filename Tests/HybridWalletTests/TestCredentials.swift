import Crypto
import Foundation
import HybridCore

@testable import HybridWallet

/// Test credentials: an SD-JWT VC PID made here with fixed salts and the RFC 9901 §4.2 example
/// disclosures, and the device key of ISO/IEC 18013-5 Annex D.
enum TestCredentials {
    /// The Annex D device key (Tests/Vectors/wallet/iso18013-5-annex-d.json).
    static func isoDeviceKey() throws -> DeviceKey {
        let vector = try WalletVectors.json("iso18013-5-annex-d.json")
        return DeviceKey(
            privateKey: try P256.Signing.PrivateKey(
                rawRepresentation: try WalletVectors.hex(vector["deviceKeyPrivate"])))
    }

    static func disclosure(_ json: String) -> String { Base64URL.encode(Array(json.utf8)) }

    /// RFC 9901 §4.2.1 and §4.2.2.
    static let familyName = "WyJfMjZiYzRMVC1hYzZxMktJNmNCVzVlcyIsICJmYW1pbHlfbmFtZSIsICJNw7ZiaXVzIl0"
    static let nationalityFR = "WyJsa2x4RjVqTVlsR1RQVW92TU5JdkNBIiwgIkZSIl0"
    static let givenName = disclosure(#"["salt-given", "given_name", "Erika"]"#)
    static let over18 = disclosure(#"["salt-18", "18", true]"#)
    static let over65 = disclosure(#"["salt-65", "65", false]"#)
    static var ageObject: String {
        disclosure(
            #"["salt-age", "age_equals_or_over", {"_sd": [""# + Disclosure.digest(of: over18) + #"", ""#
                + Disclosure.digest(of: over65) + #""]}]"#)
    }

    /// A PID SD-JWT VC bound to `deviceKey`, signed by a throwaway issuer key.
    static func pid(boundTo deviceKey: DeviceKey, vct: String = "urn:eudi:pid:1") -> String {
        let payload = JSONItem.object([
            "iss": "https://issuer.example", "vct": .string(vct), "_sd_alg": "sha-256",
            "cnf": .object(["jwk": deviceKey.publicJWK.json]),
            "_sd": .array([familyName, givenName, ageObject].map { .string(Disclosure.digest(of: $0)) }),
            "nationalities": .array([.object(["...": .string(Disclosure.digest(of: nationalityFR))])]),
        ])
        let jwt = ES256.compactJWS(
            header: .object(["alg": "ES256", "typ": "dc+sd-jwt"]), payload: payload, key: P256.Signing.PrivateKey())
        return ([jwt, familyName, givenName, ageObject, over18, over65, nationalityFR]).joined(separator: "~") + "~"
    }

    static func stored(_ compact: String, id: String = "c1") -> WalletCredential {
        WalletCredential(id: id, format: .sdJWTVC, bytes: Array(compact.utf8), addedAt: Date(timeIntervalSince1970: 0))
    }

    static func isoMdoc(id: String = "m1") throws -> WalletCredential {
        let vector = try WalletVectors.json("iso18013-5-annex-d.json")
        return WalletCredential(
            id: id, format: .mdoc, bytes: try WalletVectors.hex(vector["issuerSigned"]),
            addedAt: Date(timeIntervalSince1970: 0))
    }
}
