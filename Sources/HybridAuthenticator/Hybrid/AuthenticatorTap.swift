import HybridCore
import HybridTransport

/// What a conformance tool (`hybrid-conformance phone`) injects into ``AuthenticatorRunner`` to run
/// it as a strict, configurable phone: it sees every client message where the bytes are visible,
/// and may change the phone's own behaviour (a real phone variant's profile, or a deliberate
/// fault). The runner's own tap, ``UntappedPhone``, observes nothing and changes nothing; every
/// requirement has that default.
package protocol AuthenticatorTap: Sendable {
    /// Called for every client message, after the session has handled it.
    func clientMessage(_ message: TappedClientMessage)
    /// Called before the phone sends a message; returns the messages to send in its place.
    func outgoing(_ kind: PhoneMessageKind, _ bytes: [UInt8]) -> [[UInt8]]
    /// The JSON answer to send (after the type byte), given the one the wallet's answer encodes to.
    func jsonReply(_ bytes: [UInt8]) -> [UInt8]
    /// The routing ID the phone advertises, given the one the relay assigned.
    func advertisedRoutingID(_ assigned: RoutingID) -> RoutingID
    /// Adjusts the session: revision, crypter construction, features, update messages.
    func configureSession(_ configuration: inout AuthenticatorSession.Configuration)
    /// Close the tunnel right after sending the reply, without waiting for the client's shutdown.
    var hangsUpAfterReply: Bool { get }
    /// Never answer the request: wait until the client gives up and closes the tunnel.
    var neverAnswers: Bool { get }
    /// The largest message the tunnel client may send or receive, if not the default 1 MiB (a
    /// fault sends a larger one).
    var maxMessageSize: Int? { get }
    /// How long the phone waits (on ``AuthenticatorRunner/clock``) after the client's shutdown
    /// before it sends the update that a session configured with `sendsUpdateLate` sends then
    /// (protocol.md §7.5); `.zero` sends it at once. The wait ends early if the client closes the
    /// tunnel.
    var lateUpdateDelay: Duration { get }
    /// Called when the client closed the tunnel during ``lateUpdateDelay``, with how long after its
    /// shutdown; the late update is then not sent and the session ends normally.
    func clientClosedBeforeLateUpdate(_ afterShutdown: Duration)
    /// Called once the tunnel has closed, with how (`nil` if no close frame arrived).
    func tunnelClosed(_ close: TunnelCloseInfo?)
}

extension AuthenticatorTap {
    package func clientMessage(_ message: TappedClientMessage) {}
    package func outgoing(_ kind: PhoneMessageKind, _ bytes: [UInt8]) -> [[UInt8]] { [bytes] }
    package func jsonReply(_ bytes: [UInt8]) -> [UInt8] { bytes }
    package func advertisedRoutingID(_ assigned: RoutingID) -> RoutingID { assigned }
    package func configureSession(_ configuration: inout AuthenticatorSession.Configuration) {}
    package var hangsUpAfterReply: Bool { false }
    package var neverAnswers: Bool { false }
    package var maxMessageSize: Int? { nil }
    package var lateUpdateDelay: Duration { .zero }
    package func clientClosedBeforeLateUpdate(_ afterShutdown: Duration) {}
    package func tunnelClosed(_ close: TunnelCloseInfo?) {}
}

/// The tap of every run but a conformance phone's: it observes nothing and changes nothing.
package struct UntappedPhone: AuthenticatorTap {
    package init() {}
}

/// One message from the client, as the phone's session saw it (``AuthenticatorTap/clientMessage(_:)``).
package struct TappedClientMessage: Sendable {
    /// The WebSocket message as it arrived.
    package var bytes: [UInt8]
    /// The decrypted plaintext with its padding, if the message authenticated (never for the
    /// handshake message).
    package var paddedPlaintext: [UInt8]?
    /// Why the phone's session refused the message, if it did.
    package var error: (any Error)?
}

/// What a message the phone is about to send is (``AuthenticatorTap/outgoing(_:_:)``).
package enum PhoneMessageKind: Sendable, Equatable {
    /// Noise msg2.
    case handshake
    /// The post-handshake message (phone seq 0).
    case postHandshake
    /// An update message.
    case update
    /// The reply to the client's request.
    case reply
}
