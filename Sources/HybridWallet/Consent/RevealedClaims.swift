/// What a presentation reveals, computed from what is sent, for the consent question: the user
/// is shown every claim the verifier can read, not only the ones the query named (a requested
/// object comes whole, a disclosure brings its parent's plain members, and the issuer's plain
/// claims go out with every presentation).
package enum RevealedClaims {
    /// The registered claims of an SD-JWT VC (RFC 7519 §4.1, SD-JWT VC §3.2.2) and their names
    /// for people: each counts as one item (a key or a status reference is no claim about the
    /// holder, so its members are not listed one by one).
    package static let registeredSDJWTClaims: [String: String] = [
        "iss": "issuer", "iat": "date of issue", "nbf": "start of validity", "exp": "expiry date",
        "cnf": "device key", "vct": "credential type", "vct#integrity": "credential type digest",
        "status": "status list entry",
    ]

    /// What every mdoc presentation carries beside its elements: the issuer's signed MSO
    /// (ISO/IEC 18013-5 §9.1.2.4), with the issuer's certificate, the validity and the device key.
    package static let mdocIssuerAuthNames = ["issuer", "validity", "device key"]

    /// The claims paths a verifier reads in `disclosedPart`, the SD-JWT as sent before its
    /// key-binding JWT (`<issuer JWT>~<D1>~…~<Dn>~`): the issuer JWT's payload with the sent
    /// disclosures applied (RFC 9901 §7.1), `_sd`, `_sd_alg` and the digests of claims not sent
    /// removed; every leaf value is a path, a registered claim is one path, and an object or
    /// array with nothing left in it is none.
    /// - Throws: ``WalletError/invalidCredential(_:)`` if `disclosedPart` is no SD-JWT.
    package static func paths(ofDisclosedPart disclosedPart: String) throws(WalletError) -> [[ClaimsPathComponent]] {
        let sent = try SDJWTCredential(compact: disclosedPart)
        guard case .object(let members) = sent.resolved(sent.payload) else { return [] }
        // The holder's claims first, then the registered ones.
        var paths: [[ClaimsPathComponent]] = []
        for key in members.keys.sorted() where registeredSDJWTClaims[key] == nil {
            if let value = members[key] { leaves(value, at: [.key(key)], into: &paths) }
        }
        for key in members.keys.sorted() where registeredSDJWTClaims[key] != nil { paths.append([.key(key)]) }
        return paths
    }

    /// The claims paths of the mdoc elements sent: `[namespace, identifier]` each (an element's
    /// value goes whole).
    package static func paths(of elements: [MdocCredential.Element]) -> [[ClaimsPathComponent]] {
        elements.map { [.key($0.namespace), .key($0.identifier)] }
    }

    /// The names for people of `paths` (``ConsentRequest/claimName(_:)``, registered claims by
    /// their own names), each once, in order.
    package static func names(of paths: [[ClaimsPathComponent]]) -> [String] {
        var names: [String] = []
        for path in paths {
            let name: String
            if path.count == 1, case .key(let key) = path[0], let registered = registeredSDJWTClaims[key] {
                name = registered
            } else {
                name = ConsentRequest.claimName(path)
            }
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    private static func leaves(
        _ value: JSONItem, at path: [ClaimsPathComponent], into paths: inout [[ClaimsPathComponent]]
    ) {
        switch value {
        case .object(let members):
            for key in members.keys.sorted() {
                if let member = members[key] { leaves(member, at: path + [.key(key)], into: &paths) }
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() { leaves(element, at: path + [.index(index)], into: &paths) }
        case .null, .bool, .integer, .number, .string:
            paths.append(path)
        }
    }
}
