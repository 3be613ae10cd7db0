import NIOCore
import NIOHTTP1
import Testing

@testable import TunnelRelay

/// ``RelayRequestHeadParser`` against the opening handshake of RFC 6455 §1.2 and the message
/// syntax of RFC 9112 §2–§5.
struct RelayRequestHeadParserTests {
    /// The client's opening handshake printed in RFC 6455 §1.2, followed by a masked frame.
    static let rfc6455Request =
        "GET /chat HTTP/1.1\r\nHost: server.example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: http://example.com\r\n"
        + "Sec-WebSocket-Protocol: chat, superchat\r\nSec-WebSocket-Version: 13\r\n\r\n"
    /// RFC 6455 §5.7: a single-frame masked text message "Hello".
    static let maskedHello: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]

    static func parse(_ bytes: [UInt8]) throws(RelayRequestHeadError) -> (HTTPRequestHead?, ByteBuffer) {
        var parser = RelayRequestHeadParser()
        var buffer = ByteBuffer(bytes: bytes)
        let head = try parser.parse(&buffer)
        return (head, buffer)
    }

    @Test func rfc6455HandshakeParsesAndLeavesTheFrame() throws {
        let (head, rest) = try Self.parse(Array(Self.rfc6455Request.utf8) + Self.maskedHello)
        let parsed = try #require(head)
        #expect(parsed.method == .GET)
        #expect(parsed.uri == "/chat")
        #expect(parsed.version == .http1_1)
        #expect(parsed.headers["host"] == ["server.example.com"])
        #expect(parsed.headers["Sec-WebSocket-Key"] == ["dGhlIHNhbXBsZSBub25jZQ=="])
        #expect(parsed.headers[canonicalForm: "sec-websocket-protocol"] == ["chat", "superchat"])
        #expect(parsed.headers.count == 7)
        #expect(Array(rest.readableBytesView) == Self.maskedHello)
    }

    /// The same head fed a byte at a time gives the same result, and nothing before its end.
    @Test func byteAtATime() throws {
        var parser = RelayRequestHeadParser()
        var buffer = ByteBuffer()
        var head: HTTPRequestHead?
        let bytes = Array(Self.rfc6455Request.utf8)
        for (index, byte) in bytes.enumerated() {
            buffer.writeInteger(byte)
            head = try parser.parse(&buffer)
            #expect((head != nil) == (index == bytes.count - 1))
        }
        #expect(head?.headers["Sec-WebSocket-Version"] == ["13"])
        #expect(buffer.readableBytes == 0)
    }

    /// RFC 9112 §2.2: empty lines before the request line are ignored; §5: OWS around a value is
    /// not part of it.
    @Test func leadingEmptyLinesAndOptionalWhitespace() throws {
        let (head, _) = try Self.parse(Array("\r\n\r\nGET /healthz HTTP/1.0\r\nHost:\t x \r\n\r\n".utf8))
        #expect(head?.version == .http1_0)
        #expect(head?.headers["Host"] == ["x"])
    }

    @Test(arguments: [
        "GET /chat HTTP/1.1\nHost: x\n\n",  // bare LF (RFC 9112 §2.2: we require CRLF)
        "GET /chat HTTP/1.1\r\nHost : x\r\n\r\n",  // whitespace before the colon (§5.1: reject)
        "GET /chat HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",  // obs-fold (§5.2: reject)
        "GET /chat HTTP/9.9\r\n\r\n",  // unknown version
        "GET  /chat HTTP/1.1\r\n\r\n",  // two spaces
        "GET /chat\r\n\r\n",  // HTTP/0.9 form
        "G(T /chat HTTP/1.1\r\n\r\n",  // not a token
        "GET /chat HTTP/1.1\r\nNoColon\r\n\r\n",
        "GET /chat HTTP/1.1\r\nX: a\u{01}b\r\n\r\n",  // control byte in a value
        "GET /ch\rat HTTP/1.1\r\n\r\n",  // bare CR
    ])
    func malformedIsRefused(request: String) {
        #expect(throws: RelayRequestHeadError.malformed) { try Self.parse(Array(request.utf8)) }
    }

    /// Garbage is refused as soon as it arrives, before any line ends.
    @Test func garbageIsRefusedBeforeALineEnds() {
        #expect(throws: RelayRequestHeadError.malformed) { try Self.parse([0x16, 0x03, 0x01, 0x02, 0x00]) }
        #expect(throws: RelayRequestHeadError.malformed) {
            try Self.parse(Array("GET / HTTP/1.1\r\nX: a\u{00}".utf8))
        }
    }

    @Test func tooLargeIsRefusedWithoutItsEnd() throws {
        let limit = RelayRequestHeadParser.maxHeadLength
        #expect(throws: RelayRequestHeadError.tooLarge) {
            try Self.parse(Array(("GET /" + String(repeating: "a", count: limit)).utf8))
        }
        #expect(throws: RelayRequestHeadError.tooLarge) {
            try Self.parse(Array(String(repeating: "\r\n", count: limit).utf8))
        }
        let header = "X: " + String(repeating: "y", count: limit - 40) + "\r\n"
        let (fits, _) = try Self.parse(Array(("GET / HTTP/1.1\r\n" + header + "\r\n").utf8))
        #expect(fits != nil)
        #expect(throws: RelayRequestHeadError.tooLarge) {
            try Self.parse(Array(("GET / HTTP/1.1\r\n" + header + header).utf8))
        }
    }

    /// RFC 6455 §1.3's worked example, written out as the 101 response the relay sends.
    @Test func switchingProtocolsResponse() {
        let response = String(
            buffer: RelayHTTPResponse.switchingProtocols(key: "dGhlIHNhbXBsZSBub25jZQ==", routingID: nil))
        #expect(response.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        #expect(response.contains("\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
        #expect(response.contains("\r\nSec-WebSocket-Protocol: fido.cable\r\n"))
        #expect(response.hasSuffix("\r\n\r\n"))
    }
}
