/// The executables' one JSON-line writer: a JSON value whose object members keep the order given,
/// written compactly on one line.
///
/// Every event line is ``event(_:_:)``: `"event"` first, then the members sorted by key, so that
/// `hybrid-client`, `hybrid-security-key` and `hybrid-conformance` write one dialect
/// (docs/client.md, "Events"). Lines reach a terminal through ``Console/writeJSONOutput(_:)`` or
/// ``Console/writeJSONError(_:)``.
package enum JSONLine: Equatable, Sendable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case null
    case array([JSONLine])
    case object([(String, JSONLine)])

    /// An event line: `{"event":NAME,…}` with `members` after it, sorted by key.
    package static func event(_ name: String, _ members: [(String, JSONLine)] = []) -> JSONLine {
        .object([("event", .string(name))] + members.sorted { $0.0 < $1.0 })
    }

    /// Compact JSON text on one line (control characters escaped, so never a raw newline).
    package var text: String {
        switch self {
        case .string(let value): return Self.quoted(value)
        case .int(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        case .array(let values): return "[" + values.map(\.text).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { Self.quoted($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    /// `value`, or `null` when it is nil.
    package static func optional(_ value: String?) -> JSONLine { value.map(JSONLine.string) ?? .null }

    private static func quoted(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _
            where scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
                || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    package static func == (lhs: JSONLine, rhs: JSONLine) -> Bool { lhs.text == rhs.text }
}
