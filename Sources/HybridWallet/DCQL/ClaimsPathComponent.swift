/// One component of a claims path pointer (OpenID4VP 1.0 §7): a key, an array index, or `null`
/// for every element of an array.
package enum ClaimsPathComponent: Hashable, Sendable {
    case key(String)
    case index(Int)
    case allElements

    /// Longest claims path pointer accepted.
    package static let maximumLength = 16

    /// Reads a pointer: a non-empty array of strings, nulls and non-negative integers (§7).
    static func pointer(_ json: JSONItem) throws(WalletError) -> [ClaimsPathComponent] {
        guard let elements = json.arrayValue, !elements.isEmpty, elements.count <= maximumLength else {
            throw .malformedRequest("a claims path is not an array of 1 to \(maximumLength) components")
        }
        var path: [ClaimsPathComponent] = []
        for element in elements {
            switch element {
            case .string(let key): path.append(.key(key))
            case .null: path.append(.allElements)
            case .integer(let index) where index >= 0 && index <= Int32.max: path.append(.index(Int(index)))
            case .integer, .bool, .number, .array, .object:
                throw .malformedRequest("a claims path component is not a string, null or non-negative integer")
            }
        }
        return path
    }
}
