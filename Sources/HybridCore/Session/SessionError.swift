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
