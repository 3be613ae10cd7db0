import Foundation
import HybridCore

/// A JSON value as read from a verifier's request or an issuer's payload: the types DCQL and
/// SD-JWT compare and walk. Integers stay exact (`integer`); other numbers are `number`.
package indirect enum JSONItem: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONItem])
    case object([String: JSONItem])

    /// The members, if this is an object.
    package var objectValue: [String: JSONItem]? { if case .object(let members) = self { members } else { nil } }
    /// The elements, if this is an array.
    package var arrayValue: [JSONItem]? { if case .array(let elements) = self { elements } else { nil } }
    /// The text, if this is a string.
    package var stringValue: String? { if case .string(let text) = self { text } else { nil } }
    /// The flag, if this is a boolean.
    package var boolValue: Bool? { if case .bool(let flag) = self { flag } else { nil } }

    /// The member `key`, if this is an object that has it.
    package subscript(key: String) -> JSONItem? { objectValue?[key] }

    /// The deepest nesting accepted by ``parse(_:limit:)``.
    package static let maximumDepth = 32

    /// Why ``parse(_:limit:)`` failed.
    package enum ParseError: Error, Hashable, Sendable {
        /// Longer than the limit.
        case tooLarge(limit: Int)
        /// Not JSON (RFC 8259) at byte `offset`. An object that names a member twice counts as
        /// invalid: RFC 8259 §4 leaves the meaning open, and a verifier and this wallet must never
        /// read one request differently.
        case invalid(offset: Int)
        /// Nested deeper than ``JSONItem/maximumDepth``.
        case tooDeep
    }

    /// Parses `bytes` as exactly one JSON value (RFC 8259), at most `limit` bytes and
    /// ``maximumDepth`` levels deep, with no member named twice in an object. The reading is the
    /// core's strict one (``JSONNode``, shared with the hybrid JSON messages); numbers then become
    /// exact integers where they are written as integers that fit 64 bits.
    package static func parse(_ bytes: some Collection<UInt8>, limit: Int) throws(ParseError) -> JSONItem {
        let node: JSONNode
        do {
            node = try JSONNode(parsing: bytes, maxBytes: limit, maxDepth: maximumDepth)
        } catch {
            switch error {
            case .tooLarge: throw .tooLarge(limit: limit)
            case .tooDeep: throw .tooDeep
            case .malformedJSON(let offset): throw .invalid(offset: offset)
            default: throw .invalid(offset: 0)
            }
        }
        return try JSONItem(node)
    }

    /// The item for a node the core read; `invalid` for a number outside `Double`'s range.
    private init(_ node: JSONNode) throws(ParseError) {
        switch node {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .string(let text): self = .string(text)
        case .number(let literal):
            if !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let integer = Int64(literal) {
                self = .integer(integer)
            } else if let number = Double(literal), number.isFinite {
                self = .number(number)
            } else {
                throw .invalid(offset: 0)
            }
        case .array(let elements):
            var items: [JSONItem] = []
            for element in elements { items.append(try JSONItem(element)) }
            self = .array(items)
        case .object(let members):
            var items: [String: JSONItem] = [:]
            for (name, value) in members { items[name] = try JSONItem(value) }
            self = .object(items)
        }
    }
}

extension JSONItem {
    /// Compact JSON with sorted keys and `/` unescaped: the bytes this wallet signs and sends.
    package var encodedBytes: [UInt8] {
        var out = ""
        write(to: &out)
        return Array(out.utf8)
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .integer(let integer): out += String(integer)
        case .number(let number): out += number.isFinite ? "\(number)" : "null"
        case .string(let text): Self.writeString(text, to: &out)
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                element.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                Self.writeString(key, to: &out)
                out += ":"
                members[key]?.write(to: &out)
            }
            out += "}"
        }
    }

    /// `text` as a JSON string, escaped by Foundation's encoder.
    private static func writeString(_ text: String, to out: inout String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        // Encoding a string cannot fail.
        out += String(decoding: (try? encoder.encode(text)) ?? Data(#""""#.utf8), as: UTF8.self)
    }
}
