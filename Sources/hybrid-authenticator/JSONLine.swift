/// A JSON value with object keys in the order given, so every line starts with `"event"`.
enum JSONLine: Equatable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case null
    case array([JSONLine])
    case object([(String, JSONLine)])

    /// Compact JSON text on one line (control characters escaped, so never a raw newline).
    var text: String {
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
    static func optional(_ value: String?) -> JSONLine { value.map(JSONLine.string) ?? .null }

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

    static func == (lhs: JSONLine, rhs: JSONLine) -> Bool { lhs.text == rhs.text }
}
