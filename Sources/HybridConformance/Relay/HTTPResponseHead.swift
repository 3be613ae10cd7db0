/// An HTTP/1.1 response head as a relay sent it: status line and headers, duplicates kept.
///
/// Parsed from the raw bytes through the blank line, so the judgement sees exactly what went over
/// the wire (a second routing-ID header, a header in odd case) rather than what an HTTP library
/// made of it.
package struct HTTPResponseHead: Sendable, Equatable {
    /// `HTTP/1.1`.
    package let version: String
    /// The status code, e.g. 101 or 404.
    package let status: Int
    /// The reason phrase, possibly empty.
    package let reason: String
    /// Header fields in order, names as sent.
    package let headers: [(name: String, value: String)]

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.version == rhs.version && lhs.status == rhs.status && lhs.reason == rhs.reason
            && lhs.headers.elementsEqual(rhs.headers) { $0.name == $1.name && $0.value == $1.value }
    }

    /// The largest head this parser accepts (bytes through the blank line).
    package static let maxLength = 16 * 1024

    /// The index just past the `\r\n\r\n` that ends a head in `bytes`, or `nil` if it has not ended yet.
    package static func endIndex(in bytes: some Collection<UInt8>) -> Int? {
        let array = Array(bytes)
        guard array.count >= 4 else { return nil }
        for index in 0...(array.count - 4)
        where array[index] == 13 && array[index + 1] == 10 && array[index + 2] == 13 && array[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    /// Parses a head (through its blank line; anything after it is ignored).
    package init(parsing bytes: some Collection<UInt8>) throws(HTTPResponseHeadError) {
        let array = Array(bytes)
        guard let end = Self.endIndex(in: array) else {
            throw array.count > Self.maxLength ? .tooLong : .incomplete
        }
        guard end <= Self.maxLength else { throw .tooLong }
        guard array[..<end].allSatisfy({ $0 < 0x80 }) else { throw .notASCII }
        let text = String(decoding: array[..<(end - 4)], as: UTF8.self)
        let lines = text.components(separatedByCRLF: ())
        guard let statusLine = lines.first else { throw .badStatusLine("") }
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), parts[1].count == 3,
            let status = Int(parts[1]), (100...599).contains(status)
        else { throw .badStatusLine(statusLine) }
        version = String(parts[0])
        self.status = status
        reason = parts.count == 3 ? String(parts[2]) : ""
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw .badHeader(line) }
            let name = line[..<colon]
            guard !name.isEmpty, !name.contains(" "), !name.contains("\t") else { throw .badHeader(line) }
            let value = line[line.index(after: colon)...].trimmingSpaces()
            headers.append((String(name), value))
        }
        self.headers = headers
    }

    /// Every value of the header `name` (case-insensitive), in order.
    package func values(_ name: String) -> [String] {
        let lowered = name.lowercased()
        return headers.filter { $0.name.lowercased() == lowered }.map(\.value)
    }

    /// The status line as sent, e.g. `404 Not Found`.
    package var statusText: String { reason.isEmpty ? "\(status)" : "\(status) \(reason)" }
}

/// Why bytes are not an HTTP response head.
package enum HTTPResponseHeadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No blank line yet.
    case incomplete
    /// Longer than ``HTTPResponseHead/maxLength``.
    case tooLong
    /// A byte above 0x7F in the head.
    case notASCII
    /// The first line is not `HTTP/x.y NNN reason`.
    case badStatusLine(String)
    /// A header line without a name and colon.
    case badHeader(String)

    package var description: String {
        switch self {
        case .incomplete: "the response head did not end"
        case .tooLong: "the response head is longer than 16 KiB"
        case .notASCII: "the response head has non-ASCII bytes"
        case .badStatusLine(let line): "bad status line \"\(line.prefix(80))\""
        case .badHeader(let line): "bad header line \"\(line.prefix(80))\""
        }
    }
}

extension String {
    /// Splits at CRLF only (a bare LF stays inside a line, and so fails the header syntax).
    fileprivate func components(separatedByCRLF _: Void) -> [String] {
        var lines: [String] = []
        var current: [UInt8] = []
        var bytes = Array(utf8)[...]
        while let byte = bytes.popFirst() {
            if byte == 13, bytes.first == 10 {
                bytes.removeFirst()
                lines.append(String(decoding: current, as: UTF8.self))
                current = []
            } else {
                current.append(byte)
            }
        }
        lines.append(String(decoding: current, as: UTF8.self))
        return lines
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
