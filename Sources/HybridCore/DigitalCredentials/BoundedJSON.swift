/// A JSON value (RFC 8259) read strictly and within bounds, for the digital-credential envelopes of
/// message type 03 (protocol.md §7.8). Numbers keep their literal text, so re-encoding loses nothing.
package indirect enum JSONNode: Hashable, Sendable {
    case null
    case bool(Bool)
    /// A number as written (already checked against the RFC 8259 grammar).
    case number(String)
    case string(String)
    case array([JSONNode])
    /// Members by name (a name appears once; encoding sorts them).
    case object([String: JSONNode])

    /// The value of member `name`, if this is an object that has it.
    package subscript(member name: String) -> JSONNode? {
        if case .object(let members) = self { members[name] } else { nil }
    }

    /// The text, if this is a string.
    package var stringValue: String? {
        if case .string(let text) = self { text } else { nil }
    }

    /// The elements, if this is an array.
    package var arrayValue: [JSONNode]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    /// Whether this is an object.
    package var isObject: Bool {
        if case .object = self { true } else { false }
    }
}

extension JSONNode {
    /// Reads one JSON document: UTF-8, optional whitespace around one value, nothing else.
    ///
    /// - Parameters:
    ///   - bytes: The document.
    ///   - maxBytes: Larger documents are refused before parsing.
    ///   - maxDepth: Arrays and objects nested deeper than this are refused.
    ///   - refusingDuplicateNames: Whether an object naming a member twice is refused (RFC 8259 §4:
    ///     names SHOULD be unique); when not, the last value of the name is kept.
    /// - Throws: ``DigitalCredentialEnvelopeError/tooLarge(size:limit:)``,
    ///   ``DigitalCredentialEnvelopeError/tooDeep(limit:)`` or
    ///   ``DigitalCredentialEnvelopeError/malformedJSON(offset:)`` (also for duplicate member names
    ///   when refused, lone surrogates, invalid UTF-8 and control characters in strings).
    package init(
        parsing bytes: some Collection<UInt8>, maxBytes: Int = DigitalCredentialEnvelopeLimits.maxBytes,
        maxDepth: Int = DigitalCredentialEnvelopeLimits.maxDepth, refusingDuplicateNames: Bool = true
    ) throws(DigitalCredentialEnvelopeError) {
        guard bytes.count <= maxBytes else { throw .tooLarge(size: bytes.count, limit: maxBytes) }
        var reader = JSONByteReader(
            bytes: Array(bytes), maxDepth: maxDepth, refusingDuplicateNames: refusingDuplicateNames)
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.atEnd else { throw .malformedJSON(offset: reader.offset) }
        self = value
    }

    /// Compact UTF-8 JSON as Chromium's `base::WriteJson` writes it: members sorted by name (bytes),
    /// no spaces, `"`, `\`, `\b \f \n \r \t` escaped short, `<`, U+2028, U+2029 and other controls as
    /// `\uXXXX` (upper-case hex), everything else as UTF-8. Numbers as read.
    package var encoded: [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .number(let literal): out += Array(literal.utf8)
        case .string(let text): Self.writeString(text, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            let sorted = members.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
            for (index, member) in sorted.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\u{08}": out += Array("\\b".utf8)
            case "\u{0C}": out += Array("\\f".utf8)
            case "\n": out += Array("\\n".utf8)
            case "\r": out += Array("\\r".utf8)
            case "\t": out += Array("\\t".utf8)
            case "\\": out += Array("\\\\".utf8)
            case "\"": out += Array("\\\"".utf8)
            case "<", "\u{2028}", "\u{2029}":
                out += Array("\\u".utf8) + hex4(scalar.value)
            case _ where scalar.value < 0x20:
                out += Array("\\u".utf8) + hex4(scalar.value)
            default:
                out += Array(String(scalar).utf8)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func hex4(_ value: UInt32) -> [UInt8] {
        let digits = Array("0123456789ABCDEF".utf8)
        return [12, 8, 4, 0].map { digits[Int((value >> $0) & 0xF)] }
    }
}

/// The bounds every digital-credential envelope is read within.
package enum DigitalCredentialEnvelopeLimits {
    /// The largest envelope: a tunnel message is at most 1 MiB (Chromium's limit, protocol.md §5.4),
    /// and the type byte, the crypter's padding and tag take up to 49 bytes of it.
    package static let maxBytes = (1 << 20) - 64
    /// The deepest nesting of arrays and objects (a DCQL query needs about a dozen levels).
    package static let maxDepth = 32
}

/// The cursor of ``JSONNode/init(parsing:maxBytes:maxDepth:)``.
private struct JSONByteReader {
    let bytes: [UInt8]
    let maxDepth: Int
    let refusingDuplicateNames: Bool
    var offset = 0

    init(bytes: [UInt8], maxDepth: Int, refusingDuplicateNames: Bool) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.refusingDuplicateNames = refusingDuplicateNames
    }

    var atEnd: Bool { offset == bytes.count }

    mutating func skipWhitespace() {
        while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
    }

    func malformed() -> DigitalCredentialEnvelopeError { .malformedJSON(offset: offset) }

    mutating func value(depth: Int) throws(DigitalCredentialEnvelopeError) -> JSONNode {
        guard offset < bytes.count else { throw malformed() }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default: return .number(try number())
        }
    }

    mutating func literal(_ word: String) throws(DigitalCredentialEnvelopeError) {
        let expected = Array(word.utf8)
        guard bytes.count - offset >= expected.count, Array(bytes[offset..<offset + expected.count]) == expected
        else { throw malformed() }
        offset += expected.count
    }

    mutating func object(depth: Int) throws(DigitalCredentialEnvelopeError) -> JSONNode {
        var members: [String: JSONNode] = [:]
        try elements(depth: depth, closing: UInt8(ascii: "}")) { reader throws(DigitalCredentialEnvelopeError) in
            guard reader.offset < reader.bytes.count, reader.bytes[reader.offset] == UInt8(ascii: "\"") else {
                throw reader.malformed()
            }
            let nameOffset = reader.offset
            let name = try reader.string()
            guard members[name] == nil || !reader.refusingDuplicateNames else {
                throw .malformedJSON(offset: nameOffset)
            }
            reader.skipWhitespace()
            guard reader.offset < reader.bytes.count, reader.bytes[reader.offset] == UInt8(ascii: ":") else {
                throw reader.malformed()
            }
            reader.offset += 1
            reader.skipWhitespace()
            members[name] = try reader.value(depth: depth)
        }
        return .object(members)
    }

    mutating func array(depth: Int) throws(DigitalCredentialEnvelopeError) -> JSONNode {
        var elements: [JSONNode] = []
        try self.elements(depth: depth, closing: UInt8(ascii: "]")) { reader throws(DigitalCredentialEnvelopeError) in
            elements.append(try reader.value(depth: depth))
        }
        return .array(elements)
    }

    /// Reads the comma-separated items of an array or object, after its opening bracket, through
    /// `closing`; `item` reads one (leading whitespace skipped).
    mutating func elements(
        depth: Int, closing: UInt8, _ item: (inout JSONByteReader) throws(DigitalCredentialEnvelopeError) -> Void
    ) throws(DigitalCredentialEnvelopeError) {
        guard depth <= maxDepth else { throw .tooDeep(limit: maxDepth) }
        offset += 1
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == closing {
            offset += 1
            return
        }
        while true {
            skipWhitespace()
            try item(&self)
            skipWhitespace()
            guard offset < bytes.count else { throw malformed() }
            let separator = bytes[offset]
            offset += 1
            if separator == closing { return }
            guard separator == UInt8(ascii: ",") else { throw .malformedJSON(offset: offset - 1) }
        }
    }

    /// A string starting at the opening quote; escapes decoded, UTF-8 checked.
    mutating func string() throws(DigitalCredentialEnvelopeError) -> String {
        let start = offset
        offset += 1
        var utf8: [UInt8] = []
        while true {
            guard offset < bytes.count else { throw malformed() }
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                guard let text = String(validating: utf8, as: UTF8.self) else { throw .malformedJSON(offset: start) }
                return text
            case UInt8(ascii: "\\"):
                offset += 1
                guard offset < bytes.count else { throw malformed() }
                let escape = bytes[offset]
                offset += 1
                switch escape {
                case UInt8(ascii: "\""): utf8.append(0x22)
                case UInt8(ascii: "\\"): utf8.append(0x5C)
                case UInt8(ascii: "/"): utf8.append(0x2F)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"): utf8 += try unicodeEscape()
                default: throw .malformedJSON(offset: offset - 1)
                }
            case 0x00..<0x20:
                throw malformed()
            default:
                utf8.append(byte)
                offset += 1
            }
        }
    }

    /// The scalar of `\uXXXX` (the `\u` already read), joining a surrogate pair; a lone surrogate
    /// is malformed.
    mutating func unicodeEscape() throws(DigitalCredentialEnvelopeError) -> [UInt8] {
        let first = try hex4()
        var value = first
        if (0xD800..<0xDC00).contains(first) {
            guard bytes.count - offset >= 2, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
            else { throw malformed() }
            offset += 2
            let second = try hex4()
            guard (0xDC00..<0xE000).contains(second) else { throw malformed() }
            value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        } else if (0xDC00..<0xE000).contains(first) {
            throw malformed()
        }
        guard let scalar = Unicode.Scalar(value) else { throw malformed() }
        return Array(String(scalar).utf8)
    }

    mutating func hex4() throws(DigitalCredentialEnvelopeError) -> UInt32 {
        guard bytes.count - offset >= 4 else { throw malformed() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw malformed()
            }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    mutating func number() throws(DigitalCredentialEnvelopeError) -> String {
        let start = offset
        func isDigit(_ index: Int) -> Bool {
            index < bytes.count && bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        guard isDigit(offset) else { throw malformed() }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
        } else {
            while isDigit(offset) { offset += 1 }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard isDigit(offset) else { throw malformed() }
            while isDigit(offset) { offset += 1 }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard isDigit(offset) else { throw malformed() }
            while isDigit(offset) { offset += 1 }
        }
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }
}
