/// The bytes of a WebSocket upgrade request as the checks send it, including the malformed
/// variants (other methods, no subprotocol) that a WebSocket client library would refuse to send.
package struct RelayUpgradeRequest: Sendable, Equatable {
    /// The fixed `Sec-WebSocket-Key` (RFC 6455 §1.3's sample); any 16-byte base64 value is valid.
    package static let key = "dGhlIHNhbXBsZSBub25jZQ=="

    package var method = "GET"
    package var path: String
    /// The `Host` header value.
    package var host: String
    /// The `Sec-WebSocket-Protocol` value; `nil` leaves the header out.
    package var subprotocol: String? = "fido.cable"

    package init(path: String, host: String) {
        self.path = path
        self.host = host
    }

    /// The request head, ending in the blank line.
    package var text: String {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        text += "Sec-WebSocket-Key: \(Self.key)\r\nSec-WebSocket-Version: 13\r\n"
        if let subprotocol { text += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        if method != "GET" { text += "Content-Length: 0\r\n" }
        return text + "\r\n"
    }
}
