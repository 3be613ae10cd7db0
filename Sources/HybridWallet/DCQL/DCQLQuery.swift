/// A Digital Credentials Query Language query (OpenID4VP 1.0 §6), the part of it this wallet
/// evaluates: credential queries of format `dc+sd-jwt` (`meta.vct_values`) and `mso_mdoc`
/// (`meta.doctype_value`), claims queries (`path`, `values`, `id`), `claim_sets` and
/// `credential_sets`. `trusted_authorities` is ``WalletError/unsupported(_:)``: this wallet cannot
/// tell which authorities its issuers chain to. Unknown members are ignored (§6).
package struct DCQLQuery: Hashable, Sendable {
    /// Most credential queries in one query.
    package static let maximumCredentialQueries = 16
    /// Most claims queries in one credential query.
    package static let maximumClaimsQueries = 64

    /// `credentials` (§6.1), in request order.
    package let credentials: [CredentialQuery]
    /// `credential_sets` (§6.2), if present.
    package let credentialSets: [CredentialSetQuery]?

    /// One Credential Query (§6.1).
    package struct CredentialQuery: Hashable, Sendable {
        /// `id`: names the credential in the response's `vp_token`.
        package let id: String
        /// `format`, for example `dc+sd-jwt` or `mso_mdoc`.
        package let format: String
        /// `meta.vct_values` (SD-JWT VC, Appendix B.3.5).
        package let vctValues: [String]?
        /// `meta.doctype_value` (mdoc, Appendix B.2.3).
        package let doctypeValue: String?
        /// `claims` (§6.3), if present.
        package let claims: [ClaimQuery]?
        /// `claim_sets`: options of claim `id`s, most preferred first.
        package let claimSets: [[String]]?
    }

    /// One Claims Query (§6.3).
    package struct ClaimQuery: Hashable, Sendable {
        /// `id`, required when the credential query has `claim_sets`.
        package let id: String?
        /// `path`, a claims path pointer (§7).
        package let path: [ClaimsPathComponent]
        /// `values`: the claim must equal one of these (strings, integers, booleans).
        package let values: [JSONItem]?
    }

    /// One Credential Set Query (§6.2).
    package struct CredentialSetQuery: Hashable, Sendable {
        /// `options`: sets of credential query `id`s, most preferred first.
        package let options: [[String]]
        /// `required`, default true.
        package let required: Bool
    }

    /// Reads `dcql_query`.
    /// - Throws: ``WalletError/malformedRequest(_:)`` or ``WalletError/unsupported(_:)``.
    package init(json: JSONItem) throws(WalletError) {
        guard let members = json.objectValue else { throw .malformedRequest("dcql_query is not an object") }
        guard let list = members["credentials"]?.arrayValue, !list.isEmpty,
            list.count <= Self.maximumCredentialQueries
        else { throw .malformedRequest("credentials is not an array of 1 to \(Self.maximumCredentialQueries)") }
        var credentials: [CredentialQuery] = []
        for entry in list {
            let query = try CredentialQuery(json: entry)
            guard !credentials.contains(where: { $0.id == query.id }) else {
                throw .malformedRequest("credential query id \(query.id) repeats")
            }
            credentials.append(query)
        }
        self.credentials = credentials
        if let sets = members["credential_sets"] {
            guard let array = sets.arrayValue, !array.isEmpty else {
                throw .malformedRequest("credential_sets is not a non-empty array")
            }
            var parsed: [CredentialSetQuery] = []
            for set in array {
                guard let options = set["options"].flatMap(Self.idLists), !options.isEmpty else {
                    throw .malformedRequest("credential_sets options is not a non-empty array of id arrays")
                }
                guard options.joined().allSatisfy({ id in credentials.contains { $0.id == id } }) else {
                    throw .malformedRequest("credential_sets names an unknown credential query")
                }
                let required: Bool
                switch set["required"] {
                case nil: required = true
                case .bool(let flag)?: required = flag
                default: throw .malformedRequest("credential_sets required is not a boolean")
                }
                parsed.append(CredentialSetQuery(options: options, required: required))
            }
            credentialSets = parsed
        } else {
            credentialSets = nil
        }
    }

    /// An array of non-empty arrays of valid ids, or nil.
    static func idLists(_ json: JSONItem) -> [[String]]? {
        guard let outer = json.arrayValue else { return nil }
        var lists: [[String]] = []
        for inner in outer {
            guard let ids = inner.arrayValue?.compactMap(\.stringValue), !ids.isEmpty,
                ids.count == inner.arrayValue?.count, ids.allSatisfy(isValidID)
            else { return nil }
            lists.append(ids)
        }
        return lists
    }

    /// §6.1: a non-empty string of alphanumerics, `_` and `-`.
    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 256
            && id.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
                    || $0 == "-"
            }
    }
}

extension DCQLQuery.CredentialQuery {
    init(json: JSONItem) throws(WalletError) {
        guard let members = json.objectValue else { throw .malformedRequest("a credential query is not an object") }
        guard let id = members["id"]?.stringValue, DCQLQuery.isValidID(id) else {
            throw .malformedRequest("a credential query id is missing or invalid")
        }
        guard let format = members["format"]?.stringValue else {
            throw .malformedRequest("credential query \(id) has no format")
        }
        guard let meta = members["meta"]?.objectValue else {
            throw .malformedRequest("credential query \(id) has no meta object")
        }
        if members["trusted_authorities"] != nil { throw .unsupported("trusted_authorities") }
        if let multiple = members["multiple"], multiple.boolValue == nil {
            throw .malformedRequest("credential query \(id) multiple is not a boolean")
        }
        self.id = id
        self.format = format
        switch format {
        case CredentialFormat.sdJWTVC.rawValue:
            guard let values = meta["vct_values"]?.arrayValue, !values.isEmpty,
                values.allSatisfy({ $0.stringValue != nil })
            else { throw .malformedRequest("credential query \(id) meta.vct_values is not a non-empty string array") }
            (vctValues, doctypeValue) = (values.compactMap(\.stringValue), nil)
        case CredentialFormat.mdoc.rawValue:
            guard let doctype = meta["doctype_value"]?.stringValue else {
                throw .malformedRequest("credential query \(id) meta.doctype_value is missing")
            }
            (vctValues, doctypeValue) = (nil, doctype)
        default:
            // A format this wallet holds none of: the query is valid, it just matches nothing.
            (vctValues, doctypeValue) = (nil, nil)
        }
        if let claimsJSON = members["claims"] {
            guard let list = claimsJSON.arrayValue, !list.isEmpty, list.count <= DCQLQuery.maximumClaimsQueries else {
                throw .malformedRequest("credential query \(id) claims is not an array of 1 to 64")
            }
            var claims: [DCQLQuery.ClaimQuery] = []
            for entry in list { claims.append(try DCQLQuery.ClaimQuery(json: entry)) }
            let ids = claims.compactMap(\.id)
            guard Set(ids).count == ids.count else {
                throw .malformedRequest("credential query \(id) repeats a claim id")
            }
            self.claims = claims
        } else {
            claims = nil
        }
        if let sets = members["claim_sets"] {
            guard let claims, let lists = DCQLQuery.idLists(sets), !lists.isEmpty else {
                throw .malformedRequest("credential query \(id) claim_sets is invalid or has no claims")
            }
            let known = Set(claims.compactMap(\.id))
            guard lists.joined().allSatisfy(known.contains) else {
                throw .malformedRequest("credential query \(id) claim_sets names an unknown claim")
            }
            claimSets = lists
        } else {
            claimSets = nil
        }
    }
}

extension DCQLQuery.ClaimQuery {
    init(json: JSONItem) throws(WalletError) {
        guard let members = json.objectValue else { throw .malformedRequest("a claims query is not an object") }
        if let id = members["id"] {
            guard let text = id.stringValue, DCQLQuery.isValidID(text) else {
                throw .malformedRequest("a claims query id is invalid")
            }
            self.id = text
        } else {
            self.id = nil
        }
        guard let path = members["path"] else { throw .malformedRequest("a claims query has no path") }
        self.path = try ClaimsPathComponent.pointer(path)
        if let values = members["values"] {
            guard let list = values.arrayValue, !list.isEmpty,
                list.allSatisfy({
                    switch $0 {
                    case .string, .integer, .bool: true
                    case .null, .number, .array, .object: false
                    }
                })
            else { throw .malformedRequest("a claims query values is not a non-empty array of scalars") }
            self.values = list
        } else {
            self.values = nil
        }
    }
}
