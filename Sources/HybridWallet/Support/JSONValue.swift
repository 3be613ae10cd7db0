import Foundation

/// A JSON value as read from a verifier's request or an issuer's payload: the types DCQL and
/// SD-JWT compare and walk. Integers stay exact (`integer`); other numbers are `number`.
package indirect enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The members, if this is an object.
    package var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements, if this is an array.
    package var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The text, if this is a string.
    package var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The member `key`, if this is an object that has it.
    package subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// Parses `bytes` as one JSON value (RFC 8259), at most `limit` bytes and
    /// ``maximumDepth`` levels deep.
    /// - Throws: `JSONValue.ParseError` naming what was wrong.
    package static func parse(_ bytes: some Collection<UInt8>, limit: Int) throws(ParseError) -> JSONValue {
        guard bytes.count <= limit else { throw .tooLarge(limit: limit) }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch let error as ParseError {
            throw error
        } catch {
            throw .invalid
        }
        guard value.depth <= maximumDepth else { throw .tooDeep }
        return value
    }

    /// The deepest nesting accepted by ``parse(_:limit:)``.
    package static let maximumDepth = 32

    /// Why ``parse(_:limit:)`` failed.
    package enum ParseError: Error, Hashable, Sendable {
        /// Longer than the limit.
        case tooLarge(limit: Int)
        /// Not JSON.
        case invalid
        /// Nested deeper than ``JSONValue/maximumDepth``.
        case tooDeep
    }

    private var depth: Int {
        switch self {
        case .null, .bool, .integer, .number, .string: 0
        case .array(let elements): 1 + (elements.map(\.depth).max() ?? 0)
        case .object(let members): 1 + (members.values.map(\.depth).max() ?? 0)
        }
    }
}

extension JSONValue: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let elements = try? container.decode([JSONValue].self) {
            self = .array(elements)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .integer(let integer): try container.encode(integer)
        case .number(let number): try container.encode(number)
        case .string(let text): try container.encode(text)
        case .array(let elements): try container.encode(elements)
        case .object(let members): try container.encode(members)
        }
    }
}

extension JSONValue {
    /// Compact JSON with sorted keys and unescaped slashes: the bytes this wallet signs.
    package var encodedBytes: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a JSON tree cannot fail except for a non-finite number, which parsing never yields.
        return Array((try? encoder.encode(self)) ?? Data("null".utf8))
    }
}
