import Crypto
import Foundation

/// Constants of the tunnel service's WebSocket protocol (protocol.md §5).
package enum TunnelWebSocket {
    /// The WebSocket subprotocol every connection asks for and the server must select.
    package static let subprotocol = "fido.cable"
    /// Response header of `/cable/new`: the routing ID as 6 hex digits.
    package static let routingIDHeader = "X-caBLE-Routing-ID"
    /// Request header of `/cable/contact`: upper-case hex of the client payload CBOR.
    package static let clientPayloadHeader = "X-caBLE-Client-Payload"
    /// Request (and echoed response) header of `/cable/contact` asking for a connection signal.
    package static let signalConnectionHeader = "X-caBLE-Signal-Connection"
    /// Largest WebSocket message a Chromium peer accepts: 1 MiB.
    package static let maxMessageSize = 1 << 20

    /// The GUID appended to the request key before hashing (RFC 6455 §1.3).
    package static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The `Sec-WebSocket-Accept` value a server answers `key` with: base64 of the SHA-1 of the
    /// key and ``acceptGUID`` (RFC 6455 §4.2.2).
    package static func acceptValue(forKey key: String) -> String {
        var sha1 = Insecure.SHA1()
        var key = key
        key.withUTF8 { sha1.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        acceptGUIDBytes.withUnsafeBytes { sha1.update(bufferPointer: $0) }
        return sha1.finalize().withUnsafeBytes { Data($0) }.base64EncodedString()
    }

    /// ``acceptGUID`` as bytes, hashed after every key (a relay answers one per connection).
    private static let acceptGUIDBytes = Array(acceptGUID.utf8)
}
