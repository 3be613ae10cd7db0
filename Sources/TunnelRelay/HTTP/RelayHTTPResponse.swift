import HybridCore
import NIOCore
import NIOHTTP1

/// The few HTTP/1.1 responses the relay sends, written out as bytes in one buffer (RFC 9112 §4,
/// §6): no response encoder in the pipeline.
enum RelayHTTPResponse {
    /// A complete response with a body, after which the relay closes (`Connection: close`).
    static func closing(
        _ status: HTTPResponseStatus, body: some Collection<UInt8>, contentType: String = "text/plain; charset=utf-8"
    ) -> ByteBuffer {
        let head =
            "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\nContent-Type: \(contentType)\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        var buffer = ByteBuffer()
        buffer.reserveCapacity(head.utf8.count + body.count)
        buffer.writeString(head)
        buffer.writeBytes(body)
        return buffer
    }

    /// The 101 answer to an accepted WebSocket upgrade (RFC 6455 §4.2.2): the `fido.cable`
    /// subprotocol and, for `/cable/new`, the routing ID (protocol.md §5).
    static func switchingProtocols(key: String, routingID: RoutingID?) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(192)
        buffer.writeStaticString(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ")
        buffer.writeString(TunnelWebSocket.acceptValue(forKey: key))
        buffer.writeStaticString("\r\nSec-WebSocket-Protocol: ")
        buffer.writeString(TunnelWebSocket.subprotocol)
        buffer.writeStaticString("\r\n")
        if let routingID {
            buffer.writeString(TunnelWebSocket.routingIDHeader)
            buffer.writeStaticString(": ")
            buffer.writeString(routingID.hex)
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString("\r\n")
        return buffer
    }
}
