import NIOWebSocket

/// The close codes the relay sends, so each side learns why its tunnel ended.
///
/// Standard codes for protocol-level problems; 4000–4005 (the application range of RFC 6455
/// §7.4.2) for relay decisions.
public enum RelayCloseCode: UInt16, Sendable, CaseIterable {
    /// Echo of a side's own close; or the relay ended normally.
    case normal = 1000
    /// The relay is shutting down.
    case goingAway = 1001
    /// WebSocket framing error.
    case protocolError = 1002
    /// Text frame or empty message: the tunnel carries non-empty binary messages only.
    case policyViolation = 1008
    /// A message is larger than the configured maximum.
    case messageTooBig = 1009
    /// The relay-wide budget for messages in flight is used up (RFC 6455 registry: "Try Again
    /// Later"); the client may retry.
    case tryAgainLater = 1013
    /// The other side closed the tunnel with a close frame.
    case peerClosed = 4000
    /// The other side's connection dropped, or the relay closed it for misbehaving.
    case peerDropped = 4001
    /// No `/cable/connect` arrived within the pending-tunnel TTL.
    case pendingExpired = 4002
    /// The paired tunnel reached its maximum lifetime.
    case lifetimeExceeded = 4003
    /// This side exceeded its message-count, byte or queue limit.
    case limitExceeded = 4004
    /// This side did not answer pings.
    case idleTimeout = 4005

    /// The NIO value for a close frame.
    var webSocketErrorCode: WebSocketErrorCode { WebSocketErrorCode(codeNumber: Int(rawValue)) }

    /// The close code the *other* side of the tunnel gets when this side ends with `self`.
    var codeForPeer: RelayCloseCode {
        switch self {
        case .goingAway, .lifetimeExceeded: self
        case .normal, .peerClosed: .peerClosed
        case .protocolError, .policyViolation, .messageTooBig, .tryAgainLater, .peerDropped, .pendingExpired,
            .limitExceeded,
            .idleTimeout:
            .peerDropped
        }
    }
}
