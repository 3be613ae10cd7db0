import Foundation

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
        /// Not JSON (RFC 8259) at byte `offset`.
        case invalid(offset: Int)
        /// An object names a member twice (RFC 8259 §4 leaves the meaning open; a verifier and
        /// this wallet must never read one request differently, so it is refused).
        case duplicateMember(String)
        /// Nested deeper than ``JSONItem/maximumDepth``.
        case tooDeep
    }

    /// Parses `bytes` as exactly one JSON value (RFC 8259), at most `limit` bytes and
    /// ``maximumDepth`` levels deep, with no member named twice in an object.
    package static func parse(_ bytes: some Collection<UInt8>, limit: Int) throws(ParseError) -> JSONItem {
        guard bytes.count <= limit else { throw .tooLarge(limit: limit) }
        var parser = JSONParser(bytes: Array(bytes))
        return try parser.document()
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

/// A strict RFC 8259 reader over bytes.
private struct JSONParser {
    let bytes: [UInt8]
    var offset = 0

    mutating func document() throws(JSONItem.ParseError) -> JSONItem {
        let item = try value(depth: 0)
        skipSpace()
        guard offset == bytes.count else { throw .invalid(offset: offset) }
        return item
    }

    mutating func skipSpace() {
        while offset < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[offset]) { offset += 1 }
    }

    mutating func expect(_ literal: String) throws(JSONItem.ParseError) {
        let utf8 = Array(literal.utf8)
        guard bytes.count - offset >= utf8.count, Array(bytes[offset..<offset + utf8.count]) == utf8 else {
            throw .invalid(offset: offset)
        }
        offset += utf8.count
    }

    mutating func value(depth: Int) throws(JSONItem.ParseError) -> JSONItem {
        guard depth <= JSONItem.maximumDepth else { throw .tooDeep }
        skipSpace()
        guard offset < bytes.count else { throw .invalid(offset: offset) }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["):
            offset += 1
            var elements: [JSONItem] = []
            skipSpace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return .array(elements)
            }
            while true {
                elements.append(try value(depth: depth + 1))
                skipSpace()
                guard offset < bytes.count else { throw .invalid(offset: offset) }
                offset += 1
                if bytes[offset - 1] == UInt8(ascii: "]") { return .array(elements) }
                guard bytes[offset - 1] == UInt8(ascii: ",") else { throw .invalid(offset: offset - 1) }
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        default: return try number()
        }
    }

    mutating func object(depth: Int) throws(JSONItem.ParseError) -> JSONItem {
        offset += 1
        var members: [String: JSONItem] = [:]
        skipSpace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw .invalid(offset: offset) }
            let key = try string()
            skipSpace()
            try expect(":")
            guard members[key] == nil else { throw .duplicateMember(key) }
            members[key] = try value(depth: depth + 1)
            skipSpace()
            guard offset < bytes.count else { throw .invalid(offset: offset) }
            offset += 1
            if bytes[offset - 1] == UInt8(ascii: "}") { return .object(members) }
            guard bytes[offset - 1] == UInt8(ascii: ",") else { throw .invalid(offset: offset - 1) }
        }
    }

    /// A string starting at the opening quote; escapes decoded, surrogate pairs joined.
    mutating func string() throws(JSONItem.ParseError) -> String {
        offset += 1
        var scalars = String.UnicodeScalarView()
        var run: [UInt8] = []
        func flush() throws(JSONItem.ParseError) {
            guard let text = String(validating: run, as: UTF8.self) else { throw .invalid(offset: offset) }
            scalars.append(contentsOf: text.unicodeScalars)
            run.removeAll()
        }
        while offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            switch byte {
            case UInt8(ascii: "\""):
                try flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flush()
                scalars.append(try escape())
            case 0..<0x20:
                throw .invalid(offset: offset - 1)
            default:
                run.append(byte)
            }
        }
        throw .invalid(offset: offset)
    }

    mutating func escape() throws(JSONItem.ParseError) -> Unicode.Scalar {
        guard offset < bytes.count else { throw .invalid(offset: offset) }
        offset += 1
        switch bytes[offset - 1] {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try hex4()
            if (0xD800..<0xDC00).contains(unit) {
                try expect("\\u")
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low),
                    let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                else { throw .invalid(offset: offset) }
                return scalar
            }
            guard let scalar = Unicode.Scalar(unit) else { throw .invalid(offset: offset) }
            return scalar
        default: throw .invalid(offset: offset - 1)
        }
    }

    mutating func hex4() throws(JSONItem.ParseError) -> UInt32 {
        guard bytes.count - offset >= 4,
            bytes[offset..<offset + 4].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
            let unit = UInt32(String(decoding: bytes[offset..<offset + 4], as: UTF8.self), radix: 16)
        else { throw .invalid(offset: offset) }
        offset += 4
        return unit
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    mutating func number() throws(JSONItem.ParseError) -> JSONItem {
        let start = offset
        func digits() -> Int {
            let first = offset
            while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) { offset += 1 }
            return offset - first
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        let integerStart = offset
        let integerDigits = digits()
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else {
            throw .invalid(offset: start)
        }
        var isInteger = true
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            isInteger = false
            guard digits() > 0 else { throw .invalid(offset: offset) }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            isInteger = false
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard digits() > 0 else { throw .invalid(offset: offset) }
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        guard let number = Double(text), number.isFinite else { throw .invalid(offset: start) }
        return .number(number)
    }
}
