import HybridCore

/// An issuer-signed SD-JWT VC as the wallet stores it (RFC 9901 §4, SD-JWT VC draft §3): the
/// issuer-signed JWT and every disclosure, `<JWT>~<D1>~…~<Dn>~`, with no key-binding JWT.
///
/// Checked when read: the JWT's header (`typ` `dc+sd-jwt`, or the older `vc+sd-jwt`; an `alg`
/// other than `none`) and payload (`vct`, `cnf.jwk`, `_sd_alg` absent or `sha-256`), every
/// disclosure well formed with a digest that the payload or another disclosure references, and no
/// digest twice (RFC 9901 §7.1). The issuer's signature is checked for shape only (a non-empty
/// base64url part): its key is the verifier's business, which knows the issuers it trusts.
package struct SDJWTCredential: Hashable, Sendable {
    /// Longest stored SD-JWT accepted, in characters.
    package static let maximumLength = 256 << 10

    /// The issuer-signed JWT, compact.
    package let issuerJWT: String
    /// The JWT's header.
    package let header: JSONItem
    /// The JWT's payload.
    package let payload: JSONItem
    /// The disclosures, in stored order.
    package let disclosures: [Disclosure]
    /// `vct`, the credential type.
    package let vct: String
    /// `cnf.jwk`, the key the credential is bound to.
    package let boundKey: P256PublicJWK

    /// Reads the compact form `<JWT>~<D1>~…~<Dn>~`.
    /// - Throws: ``WalletError/invalidCredential(_:)`` saying what is wrong.
    package init(compact: String) throws(WalletError) {
        guard compact.utf8.count <= Self.maximumLength else { throw .invalidCredential("longer than 256 KiB") }
        var parts = compact.split(separator: "~", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, parts.removeLast().isEmpty else {
            throw .invalidCredential("not an SD-JWT without key binding (<JWT>~<disclosures>~)")
        }
        issuerJWT = parts.removeFirst()
        let segments = issuerJWT.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let headerBytes = Base64URL.decode(segments[0]),
            let payloadBytes = Base64URL.decode(segments[1]), let signature = Base64URL.decode(segments[2]),
            !signature.isEmpty,
            let header = try? JSONItem.parse(headerBytes, limit: Self.maximumLength), header.objectValue != nil,
            let payload = try? JSONItem.parse(payloadBytes, limit: Self.maximumLength), payload.objectValue != nil
        else { throw .invalidCredential("the issuer-signed part is not a compact JWS with JSON objects") }
        guard let alg = header["alg"]?.stringValue, alg != "none" else {
            throw .invalidCredential("the issuer JWT has no signature algorithm")
        }
        guard header["typ"] == "dc+sd-jwt" || header["typ"] == "vc+sd-jwt" else {
            throw .invalidCredential("the issuer JWT typ is not dc+sd-jwt")
        }
        if let sdAlg = payload["_sd_alg"], sdAlg != "sha-256" {
            throw .invalidCredential("_sd_alg is not sha-256")
        }
        guard let vct = payload["vct"]?.stringValue, !vct.isEmpty else { throw .invalidCredential("no vct") }
        guard let jwk = payload["cnf"]?["jwk"] else { throw .invalidCredential("no cnf.jwk: not key-bound") }
        self.header = header
        self.payload = payload
        self.vct = vct
        boundKey = try P256PublicJWK(json: jwk)
        var disclosures: [Disclosure] = []
        for part in parts { disclosures.append(try Disclosure(encoded: part)) }
        self.disclosures = disclosures
        try Self.checkDigests(payload: payload, disclosures: disclosures)
    }

    /// The stored form.
    package var compact: String { ([issuerJWT] + disclosures.map(\.encoded)).joined(separator: "~") + "~" }

    /// RFC 9901 §7.1 steps 3–4: every digest appears once, and every disclosure is referenced.
    private static func checkDigests(payload: JSONItem, disclosures: [Disclosure]) throws(WalletError) {
        var referenced: [String] = []
        func collect(_ value: JSONItem) {
            switch value {
            case .object(let members):
                for digest in members["_sd"]?.arrayValue ?? [] {
                    if let text = digest.stringValue { referenced.append(text) }
                }
                for (key, member) in members where key != "_sd" { collect(member) }
            case .array(let elements):
                for element in elements {
                    if let members = element.objectValue, members.count == 1, let digest = members["..."]?.stringValue {
                        referenced.append(digest)
                    } else {
                        collect(element)
                    }
                }
            case .null, .bool, .integer, .number, .string:
                break
            }
        }
        collect(payload)
        for disclosure in disclosures { collect(disclosure.value) }
        guard Set(referenced).count == referenced.count else { throw .invalidCredential("a digest appears twice") }
        guard Set(disclosures.map(\.digest)).count == disclosures.count else {
            throw .invalidCredential("a disclosure appears twice")
        }
        let known = Set(referenced)
        guard disclosures.allSatisfy({ known.contains($0.digest) }) else {
            throw .invalidCredential("a disclosure is not referenced by the credential")
        }
    }
}
