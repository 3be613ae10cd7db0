import NIOCore
import NIOHTTP1

/// Why a request head could not be parsed (the relay answers 400 to both).
enum RelayRequestHeadError: Error, Equatable {
    /// Not an HTTP/1.0 or HTTP/1.1 request head (RFC 9112 §3, §5): a bad request line, a bad
    /// header line, a bare CR or LF, a control byte, or an obsolete line folding.
    case malformed
    /// The head is longer than ``RelayRequestHeadParser/maxHeadLength``.
    case tooLarge
}

/// Cuts one HTTP/1.x request head (RFC 9112 §2.1: request line, header fields, empty line) out of
/// the bytes a connection reads, line by line as they arrive. Sans-IO: the caller owns the bytes;
/// ``parse(_:)`` consumes the complete lines and leaves the rest (a partial line, or whatever follows
/// the head, such as the first WebSocket frames) in the buffer.
///
/// It is strict where leniency would only serve an attacker: CRLF line ends only, no obsolete line
/// folding, no whitespace before a field name's colon, no control bytes, a bounded head. Empty
/// lines before the request line are skipped (RFC 9112 §2.2). It reads no body: the relay's
/// requests have none.
struct RelayRequestHeadParser {
    /// The longest request head accepted, leading empty lines included. A browser's upgrade request
    /// to the relay is ~500 bytes.
    static let maxHeadLength = 8192

    private var requestLine: (method: HTTPMethod, uri: String, version: HTTPVersion)?
    private var headers = HTTPHeaders()
    /// Bytes of complete lines consumed so far.
    private var consumed = 0
    /// Bytes at the start of the unfinished line already checked (so a head that arrives a byte at
    /// a time is still scanned once).
    private var checkedPrefix = 0

    /// Consumes the complete lines in `buffer`; returns the head once its empty line arrived, with
    /// `buffer` left at the first byte after it, or `nil` if more bytes are needed.
    mutating func parse(_ buffer: inout ByteBuffer) throws(RelayRequestHeadError) -> HTTPRequestHead? {
        while true {
            let view = buffer.readableBytesView
            guard let newline = view.firstIndex(of: UInt8(ascii: "\n")) else {
                try checkPartialLine(view)
                return nil
            }
            let lineLength = newline - view.startIndex + 1
            consumed += lineLength
            guard consumed <= Self.maxHeadLength else { throw .tooLarge }
            guard lineLength >= 2, view[newline - 1] == UInt8(ascii: "\r") else { throw .malformed }
            let line = view[view.startIndex..<(newline - 1)]
            buffer.moveReaderIndex(forwardBy: lineLength)
            checkedPrefix = 0
            if let head = try take(line) { return head }
        }
    }

    /// Checks the bytes of the unfinished line that were not checked yet, so that garbage is
    /// refused when it arrives rather than at the handshake timeout.
    private mutating func checkPartialLine(_ view: ByteBufferView) throws(RelayRequestHeadError) {
        guard consumed + view.count <= Self.maxHeadLength else { throw .tooLarge }
        let unchecked = view.dropFirst(checkedPrefix)
        for byte in unchecked where byte != UInt8(ascii: "\r") {
            guard requestLine == nil ? Self.isRequestLineByte(byte) : Self.isFieldLineByte(byte) else {
                throw .malformed
            }
        }
        // A CR may only be the last byte (its LF has not arrived yet).
        if let carriageReturn = view.firstIndex(of: UInt8(ascii: "\r")), carriageReturn != view.endIndex - 1 {
            throw .malformed
        }
        checkedPrefix = view.count
    }

    /// Takes one complete line (without its CRLF); returns the head after the empty line.
    private mutating func take(_ line: ByteBufferView) throws(RelayRequestHeadError) -> HTTPRequestHead? {
        guard let (method, uri, version) = requestLine else {
            if !line.isEmpty { requestLine = try Self.requestLine(line) }
            return nil
        }
        if line.isEmpty { return HTTPRequestHead(version: version, method: method, uri: uri, headers: headers) }
        let (name, value) = try Self.field(line)
        headers.add(name: name, value: value)
        return nil
    }

    /// `method SP request-target SP HTTP-version` (RFC 9112 §3).
    private static func requestLine(
        _ line: ByteBufferView
    ) throws(RelayRequestHeadError) -> (HTTPMethod, String, HTTPVersion) {
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte), !parts[1].isEmpty,
            parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { throw .malformed }
        let version: HTTPVersion
        switch String(decoding: parts[2], as: UTF8.self) {
        case "HTTP/1.1": version = .http1_1
        case "HTTP/1.0": version = .http1_0
        default: throw .malformed
        }
        return (
            HTTPMethod(rawValue: String(decoding: parts[0], as: UTF8.self)),
            String(decoding: parts[1], as: UTF8.self), version
        )
    }

    /// `field-name ":" OWS field-value OWS` (RFC 9112 §5).
    private static func field(_ line: ByteBufferView) throws(RelayRequestHeadError) -> (String, String) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .malformed }
        let name = line[line.startIndex..<colon]
        var value = line[(colon + 1)...]
        guard !name.isEmpty, name.allSatisfy(isTokenByte), value.allSatisfy(isFieldLineByte) else {
            throw .malformed
        }
        while let first = value.first, isWhitespace(first) { value = value.dropFirst() }
        while let last = value.last, isWhitespace(last) { value = value.dropLast() }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// `tchar` (RFC 9110 §5.6.2).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Visible ASCII or a space.
    private static func isRequestLineByte(_ byte: UInt8) -> Bool { byte >= 0x20 && byte < 0x7F }

    /// Visible ASCII, space, tab, or `obs-text` (RFC 9110 §5.5).
    private static func isFieldLineByte(_ byte: UInt8) -> Bool {
        (byte >= 0x20 && byte != 0x7F) || byte == UInt8(ascii: "\t")
    }
}
