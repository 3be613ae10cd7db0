/// What the user is asked before anything is shared: the verifier's origin and, for each
/// credential, its human name and the names of every claim its presentation reveals (computed
/// from what is sent, ``WalletPresenter/Prepared/consent``), or, when nothing matches, of the
/// claims asked for.
///
/// ``text`` reads "https://example.com asks for: age over 18, from your PID." The origin is the
/// one the browser asserted (the verifier cannot choose another); claim and credential names are
/// derived from the query's paths and the credential's type, never from free text in the request.
package struct ConsentRequest: Sendable {
    /// One credential and what is asked of it: its human name (for example `PID`) and the claims'
    /// human names (for example `age over 18`; empty when only the credential's mandatory, not
    /// selectively disclosable contents are asked for).
    package typealias Item = (credentialName: String, claimNames: [String])

    /// The verifier's origin.
    package let origin: String
    /// The credentials and claims, in request order.
    package let items: [Item]

    /// A consent request from its parts.
    package init(origin: String, items: [Item]) {
        self.origin = origin
        self.items = items
    }

    /// What `query` from `origin` asks for when nothing in the wallet answers it: each credential
    /// query's type (its first `vct_values` entry or its `doctype_value`) and the names of its
    /// claims paths, so the user sees what was asked before the refusal.
    package init(origin: String, unmatched query: DCQLQuery) {
        self.origin = origin
        items = query.credentials.map { credentialQuery in
            let type = credentialQuery.vctValues?.first ?? credentialQuery.doctypeValue ?? credentialQuery.format
            return (Self.credentialName(type), (credentialQuery.claims ?? []).map { Self.claimName($0.path) })
        }
    }

    /// "https://example.com asks for: age over 18, from your PID; …".
    package var text: String {
        let parts = items.map { item in
            item.claimNames.isEmpty
                ? "your \(item.credentialName)"
                : item.claimNames.joined(separator: ", ") + ", from your \(item.credentialName)"
        }
        return "\(origin) asks for: " + parts.joined(separator: "; ") + "."
    }

    /// A human name for a credential type: `PID` and `mobile driving licence` for the EU PID and
    /// ISO mDL types, otherwise the type itself.
    package static func credentialName(_ type: String) -> String {
        switch type {
        case "urn:eudi:pid:1", "eu.europa.ec.eudi.pid.1", "https://example.bmi.bund.de/credential/pid/1.0": "PID"
        case "org.iso.18013.5.1.mDL": "mobile driving licence"
        default: type.lowercased().hasSuffix(":pid") || type.lowercased().hasSuffix("/pid") ? "PID" : type
        }
    }

    /// A human name for a claims path: its last key with `_` as spaces, `age over N` for the
    /// `age_equals_or_over` object of SD-JWT VC PIDs, the parent key in parentheses for nested
    /// claims (an mdoc path's first component is its namespace and is left out).
    package static func claimName(_ path: [ClaimsPathComponent]) -> String {
        let keys = path.compactMap { component -> String? in
            if case .key(let key) = component { return key }
            return nil
        }
        guard let last = keys.last else { return "a claim" }
        if keys.count >= 2, keys[keys.count - 2] == "age_equals_or_over" { return "age over \(last)" }
        let name = last.replacingUnderscores
        if keys.count >= 2, !keys[keys.count - 2].contains(".") {
            return "\(name) (\(keys[keys.count - 2].replacingUnderscores))"
        }
        return name
    }
}

extension String {
    fileprivate var replacingUnderscores: String { split(separator: "_").joined(separator: " ") }
}
