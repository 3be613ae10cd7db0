/// Evaluates a DCQL query against the wallet's credentials (OpenID4VP 1.0 §6.4).
///
/// - A credential matches a credential query when the format agrees, its type is in
///   `meta.vct_values` (SD-JWT VC) or equals `meta.doctype_value` (mdoc), and it has every claim
///   of the first satisfiable `claim_sets` option (or of every `claims` entry when there are no
///   claim sets), with `values` honoured (§6.4.1). The newest matching credential is taken.
/// - Without `credential_sets` every credential query must match. With them, each required set
///   takes its first satisfiable option; optional sets add nothing (the verifier asked for them
///   only if available, and the wallet discloses the least), unless no set is required, in which
///   case the first satisfiable option of an optional set is returned (§6.4.2).
/// - No satisfiable answer is ``WalletError/noMatchingCredential``: nothing is returned in part.
package enum DCQLEvaluator {
    /// One credential query's answer: the credential and what it must reveal.
    package struct Match: Hashable, Sendable {
        /// The credential query's `id`.
        package let queryID: String
        /// The stored credential's id.
        package let credentialID: String
        /// The credential.
        package let credential: ParsedCredential
        /// The claims queries to reveal, in request order.
        package let claims: [DCQLQuery.ClaimQuery]
    }

    /// The credential queries to answer and their credentials, in request order.
    /// - Parameter credentials: the stored credentials, newest first (unreadable ones are skipped).
    /// - Throws: ``WalletError/noMatchingCredential``.
    package static func evaluate(_ query: DCQLQuery, credentials: [WalletCredential]) throws(WalletError) -> [Match] {
        let readable = credentials.compactMap { stored in (try? stored.parsed()).map { (stored.id, $0) } }
        var matches: [String: Match] = [:]
        for credentialQuery in query.credentials {
            for (id, credential) in readable {
                if let claims = satisfiedClaims(credentialQuery, by: credential) {
                    matches[credentialQuery.id] = Match(
                        queryID: credentialQuery.id, credentialID: id, credential: credential, claims: claims)
                    break
                }
            }
        }
        let answered: Set<String>
        if let sets = query.credentialSets {
            answered = try chooseOptions(sets, matched: Set(matches.keys))
        } else {
            guard matches.count == query.credentials.count else { throw .noMatchingCredential }
            answered = Set(matches.keys)
        }
        return query.credentials.compactMap { answered.contains($0.id) ? matches[$0.id] : nil }
    }

    private static func chooseOptions(
        _ sets: [DCQLQuery.CredentialSetQuery], matched: Set<String>
    ) throws(WalletError) -> Set<String> {
        func firstSatisfiable(_ set: DCQLQuery.CredentialSetQuery) -> [String]? {
            set.options.first { $0.allSatisfy(matched.contains) }
        }
        let required = sets.filter(\.required)
        var answered: Set<String> = []
        if required.isEmpty {
            guard let option = sets.lazy.compactMap(firstSatisfiable).first else { throw .noMatchingCredential }
            answered.formUnion(option)
        }
        for set in required {
            guard let option = firstSatisfiable(set) else { throw .noMatchingCredential }
            answered.formUnion(option)
        }
        return answered
    }

    /// The claims to reveal when `credential` satisfies `query`, else `nil`.
    private static func satisfiedClaims(
        _ query: DCQLQuery.CredentialQuery, by credential: ParsedCredential
    ) -> [DCQLQuery.ClaimQuery]? {
        guard query.format == credential.format.rawValue else { return nil }
        switch credential {
        case .sdJWT(let sdJWT):
            guard query.vctValues?.contains(sdJWT.vct) == true else { return nil }
        case .mdoc(let mdoc):
            guard query.doctypeValue == mdoc.docType else { return nil }
        }
        guard let claims = query.claims else { return [] }
        let has = { (claim: DCQLQuery.ClaimQuery) in credential.has(claim) }
        guard let sets = query.claimSets else { return claims.allSatisfy(has) ? claims : nil }
        for option in sets {
            let chosen = claims.filter { $0.id.map(option.contains) == true }
            if chosen.allSatisfy(has) { return chosen }
        }
        return nil
    }
}

extension ParsedCredential {
    /// Whether the claim exists (with one of its `values`, if given).
    package func has(_ claim: DCQLQuery.ClaimQuery) -> Bool {
        switch self {
        case .sdJWT(let credential): credential.select(claim.path, values: claim.values) != nil
        case .mdoc(let credential): credential.element(claim.path, values: claim.values) != nil
        }
    }
}
