/// Claims path processing over an SD-JWT (OpenID4VP 1.0 §7.1 applied through RFC 9901 §7.1):
/// the claims a path selects, with the disclosures that must be revealed for them.
extension SDJWTCredential {
    /// What a claims path selected.
    package struct ClaimSelection: Hashable, Sendable {
        /// The selected claim values, with every nested disclosure resolved.
        package var values: [JSONItem]
        /// Indices into ``SDJWTCredential/disclosures`` of the disclosures to reveal: those on the
        /// way to each selected claim and those inside it (a selected object comes whole).
        package var disclosureIndices: Set<Int>
    }

    /// Processes `path`; `nil` when it selects nothing (the claim does not exist, or a component
    /// does not fit the value it meets: §7.1 step 2 aborts with an error there, which for the
    /// wallet means the claim is absent). `values` keeps only claims equal to one of them.
    package func select(_ path: [ClaimsPathComponent], values expected: [JSONItem]? = nil) -> ClaimSelection? {
        var selection: [(node: JSONItem, needed: Set<Int>)] = [(payload, [])]
        for component in path {
            var next: [(node: JSONItem, needed: Set<Int>)] = []
            for (node, needed) in selection {
                switch (component, node) {
                case (.key(let key), .object(let members)):
                    if key == "_sd" || key == "_sd_alg" { continue }
                    if let value = members[key] {
                        next.append((value, needed))
                    } else if let index = disclosureIndex(inSD: members, named: key) {
                        next.append((disclosures[index].value, needed.union([index])))
                    }
                case (.index(let position), .array(let elements)):
                    if position < elements.count, let element = arrayElement(elements[position]) {
                        next.append((element.value, needed.union(element.needed)))
                    }
                case (.allElements, .array(let elements)):
                    for candidate in elements {
                        if let element = arrayElement(candidate) {
                            next.append((element.value, needed.union(element.needed)))
                        }
                    }
                case (.key, _), (.index, _), (.allElements, _):
                    return nil
                }
            }
            selection = next
        }
        var result = ClaimSelection(values: [], disclosureIndices: [])
        for (node, needed) in selection {
            var nested: Set<Int> = []
            let value = resolve(node, revealing: &nested)
            if let expected, !expected.contains(value) { continue }
            result.values.append(value)
            result.disclosureIndices.formUnion(needed.union(nested))
        }
        return result.values.isEmpty ? nil : result
    }

    /// The index of the disclosure in `members["_sd"]` that discloses `name`.
    private func disclosureIndex(inSD members: [String: JSONItem], named name: String) -> Int? {
        let digests = Set((members["_sd"]?.arrayValue ?? []).compactMap(\.stringValue))
        return disclosures.firstIndex { $0.name == name && digests.contains($0.digest) }
    }

    /// An array element: itself, or the value of the array-element disclosure it points to
    /// (`{"...": digest}`); `nil` for a digest with no disclosure (a decoy, or one not held).
    private func arrayElement(_ element: JSONItem) -> (value: JSONItem, needed: Set<Int>)? {
        guard let members = element.objectValue, members.count == 1, let digest = members["..."]?.stringValue else {
            return (element, [])
        }
        guard let index = disclosures.firstIndex(where: { $0.name == nil && $0.digest == digest }) else { return nil }
        return (disclosures[index].value, [index])
    }

    /// `value` with every disclosure of this SD-JWT inside it applied (RFC 9901 §7.1 step 2):
    /// what a verifier reads when these are the disclosures it received.
    package func resolved(_ value: JSONItem) -> JSONItem {
        var used: Set<Int> = []
        return resolve(value, revealing: &used)
    }

    /// `value` with every disclosure inside it revealed (RFC 9901 §7.1 step 2), recording which.
    private func resolve(_ value: JSONItem, revealing used: inout Set<Int>) -> JSONItem {
        switch value {
        case .object(let members):
            var out: [String: JSONItem] = [:]
            for (key, member) in members where key != "_sd" && key != "_sd_alg" {
                out[key] = resolve(member, revealing: &used)
            }
            let digests = Set((members["_sd"]?.arrayValue ?? []).compactMap(\.stringValue))
            for (index, disclosure) in disclosures.enumerated() {
                guard let name = disclosure.name, digests.contains(disclosure.digest) else { continue }
                used.insert(index)
                out[name] = resolve(disclosure.value, revealing: &used)
            }
            return .object(out)
        case .array(let elements):
            var out: [JSONItem] = []
            for element in elements {
                guard let (item, needed) = arrayElement(element) else { continue }
                used.formUnion(needed)
                out.append(resolve(item, revealing: &used))
            }
            return .array(out)
        case .null, .bool, .integer, .number, .string:
            return value
        }
    }
}
