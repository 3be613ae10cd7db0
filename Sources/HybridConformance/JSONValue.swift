import Foundation

/// A JSON value as read from a vector file (SCHEMA.md §1–2).
package enum JSONValue: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Parses one JSON document.
    package static func parse(_ data: Data) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// Compact JSON-like text for mismatch messages.
    package var summary: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return String(b)
        case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .string(let s): return "\"\(s)\""
        case .array(let a): return "[" + a.map(\.summary).joined(separator: ", ") + "]"
        case .object(let o):
            return "{" + o.keys.sorted().map { "\"\($0)\": \(o[$0]?.summary ?? "")" }.joined(separator: ", ") + "}"
        }
    }
}
