/// Why a hybrid session failed (protocol.md §6–7). Every case ends the session.
///
/// Cases say who broke the protocol, as h11 does: ``outOfOrder(_:)`` is local API misuse by the
/// driver; the others come from the peer's bytes or the tunnel.
public enum SessionError: Error, Equatable, Sendable {
    /// The driver fed an event the current state does not accept.
    case outOfOrder(OutOfOrderReason)
    /// The Noise handshake failed.
    case handshake(HandshakeError)
    /// A transport message did not decrypt, or a counter ran out.
    case transport(TransportError)
    /// The peer's post-handshake message is malformed, or lacks what the request needs.
    case invalidPostHandshake(InvalidPostHandshakeReason)
    /// A decrypted message is not a valid frame, or its type is not allowed here.
    case invalidFrame(InvalidFrameReason)
    /// The tunnel closed before the session finished.
    case tunnelClosedEarly
}

extension SessionError: CustomStringConvertible {
    /// One line for a user, the same for both roles ("the peer" is the phone to a client and the
    /// client to a phone).
    public var description: String {
        switch self {
        case .outOfOrder(let detail): "internal error (\(detail))"
        case .handshake(let error): "the handshake with the peer failed (\(error))"
        case .transport(let error): "a message from the peer did not decrypt (\(error))"
        case .invalidPostHandshake(let detail): "invalid post-handshake message (\(detail))"
        case .invalidFrame(let detail): "invalid message from the peer (\(detail))"
        case .tunnelClosedEarly: "the tunnel closed before the session was over"
        }
    }
}
