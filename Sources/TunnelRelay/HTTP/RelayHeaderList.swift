import NIOHTTP1

/// The header checks of a WebSocket upgrade, done on the field values' bytes without building
/// lists: the relay runs them on every connection. `HTTPHeaders[canonicalForm:]` gives the same
/// elements (split on commas, empty pieces dropped, spaces and tabs trimmed: RFC 9110 §5.6.1) but
/// allocates an array and a string per element; the comparisons here are ASCII-only, as header
/// names and the tokens compared (RFC 9110 §5.6.2) are.
enum RelayHeaderList {
    /// Calls `body` with each element of the comma-separated lists in the fields named `name`
    /// (ASCII case-insensitive), in order.
    static func forEachElement(
        of name: String, in headers: HTTPHeaders, _ body: (Substring.UTF8View) -> Void
    ) {
        for (fieldName, value) in headers where equalsIgnoringASCIICase(fieldName.utf8, name.utf8) {
            forEachElement(of: value, body)
        }
    }

    /// The elements of one comma-separated field value.
    static func forEachElement(of value: String, _ body: (Substring.UTF8View) -> Void) {
        let bytes = value[...].utf8
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.endIndex
            if end > start { body(trimmed(bytes[start..<end])) }
            start = end < bytes.endIndex ? bytes.index(after: end) : end
        }
    }

    /// Whether `bytes` equal `other` with ASCII letters compared case-insensitively (and nothing
    /// else folded).
    static func equalsIgnoringASCIICase(_ bytes: some Collection<UInt8>, _ other: some Collection<UInt8>) -> Bool {
        var left = bytes.makeIterator()
        var right = other.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case (let a?, let b?) where a == b || (isASCIILetter(a) && a ^ 0x20 == b): continue
            default: return false
            }
        }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    private static func trimmed(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        var bytes = bytes
        while let first = bytes.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { bytes.removeFirst() }
        while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { bytes.removeLast() }
        return bytes
    }
}
