import HybridCore

/// Why a tunnel WebSocket could not be opened or used. Each case says what the user can check.
public enum TunnelClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The TCP connection failed (DNS, refused, unreachable). Carries the target and the cause.
    case unreachable(String)
    /// The TCP connection did not complete in time.
    case connectTimeout
    /// The HTTP upgrade did not complete in time (the server accepted TCP but never answered).
    case handshakeTimeout
    /// The TLS handshake failed (certificate not trusted, wrong host name, protocol mismatch).
    case tlsFailure(String)
    /// The server answered the upgrade with this HTTP status instead of 101.
    case httpStatus(Int)
    /// The server did not select exactly the `fido.cable` subprotocol.
    case subprotocolMissing
    /// The 101 response was not a valid WebSocket upgrade (bad `Sec-WebSocket-Accept`, `Upgrade`).
    case upgradeRejected(String)
    /// The `X-caBLE-Routing-ID` response header is absent.
    case routingIDMissing
    /// The `X-caBLE-Routing-ID` response header appears more than once.
    case routingIDDuplicated
    /// The `X-caBLE-Routing-ID` response header is not exactly 6 hex digits.
    case routingIDInvalid
    /// The peer sent a text frame; the tunnel carries binary messages only.
    case textFrame
    /// A message exceeds the size limit (1 MiB by default), inbound or outbound.
    case messageTooLarge
    /// The peer broke the WebSocket protocol (bad framing, bad fragment sequence).
    case protocolViolation(WebSocketViolation)
    /// The connection is closed; nothing more can be sent.
    case connectionClosed
    /// ``TunnelConnection/messages`` was iterated a second time (it is single-pass).
    case messagesAlreadyIterated

    /// One line for a user.
    public var description: String {
        switch self {
        case .unreachable(let detail): "tunnel server unreachable: \(detail)"
        case .connectTimeout: "timed out connecting to the tunnel server"
        case .handshakeTimeout: "timed out waiting for the tunnel server's WebSocket upgrade"
        case .tlsFailure(let detail): "TLS handshake with the tunnel server failed: \(detail)"
        case .httpStatus(let status): "tunnel server answered HTTP \(status) instead of upgrading"
        case .subprotocolMissing: "tunnel server did not select the \(TunnelWebSocket.subprotocol) subprotocol"
        case .upgradeRejected(let detail): "invalid WebSocket upgrade response: \(detail)"
        case .routingIDMissing: "tunnel server sent no \(TunnelWebSocket.routingIDHeader) header"
        case .routingIDDuplicated: "tunnel server sent more than one \(TunnelWebSocket.routingIDHeader) header"
        case .routingIDInvalid: "\(TunnelWebSocket.routingIDHeader) header is not 6 hex digits"
        case .textFrame: "peer sent a text frame"
        case .messageTooLarge: "message exceeds the tunnel's size limit"
        case .protocolViolation(let violation): "WebSocket protocol violation: \(violation)"
        case .connectionClosed: "tunnel connection is closed"
        case .messagesAlreadyIterated: "tunnel messages can be iterated only once; keep the first iterator"
        }
    }
}

/// How the peer broke the WebSocket protocol (``TunnelClientError/protocolViolation(_:)``).
public enum WebSocketViolation: Hashable, Sendable, CustomStringConvertible {
    /// A frame with an opcode the tunnel does not use (its raw value, RFC 6455 §5.2).
    case unexpectedOpcode(UInt8)
    /// SwiftNIO's HTTP or WebSocket layer rejected the bytes with an error of its own.
    case rejected(UnexpectedError)

    /// One line for a user.
    public var description: String {
        switch self {
        case .unexpectedOpcode(let opcode): "unexpected opcode \(opcode)"
        case .rejected(let error): error.description
        }
    }
}
