/// Constants of the tunnel service's WebSocket protocol (protocol.md §5).
public enum TunnelWebSocket {
    /// The WebSocket subprotocol every connection asks for and the server must select.
    public static let subprotocol = "fido.cable"
    /// Response header of `/cable/new`: the routing ID as 6 hex digits.
    public static let routingIDHeader = "X-caBLE-Routing-ID"
    /// Request header of `/cable/contact`: upper-case hex of the client payload CBOR.
    public static let clientPayloadHeader = "X-caBLE-Client-Payload"
    /// Request (and echoed response) header of `/cable/contact` asking for a connection signal.
    public static let signalConnectionHeader = "X-caBLE-Signal-Connection"
    /// Largest WebSocket message a Chromium peer accepts: 1 MiB.
    public static let maxMessageSize = 1 << 20
}
