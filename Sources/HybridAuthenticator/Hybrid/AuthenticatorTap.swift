import HybridCore
import HybridTransport

/// Hooks through which a conformance tool (`hybrid-conformance phone`) runs this runner as a
/// strict, configurable phone: it sees every client message where the bytes are visible, and may
/// change the phone's own behaviour (a real phone variant's profile, or a deliberate fault). The
/// default tap observes nothing and changes nothing.
package struct AuthenticatorTap: Sendable {
    /// One message from the client, as the phone's session saw it.
    package struct ClientMessage: Sendable {
        /// The WebSocket message as it arrived.
        package var bytes: [UInt8]
        /// The decrypted plaintext with its padding, if the message authenticated (never for the
        /// handshake message).
        package var paddedPlaintext: [UInt8]?
        /// Why the phone's session refused the message, if it did.
        package var error: (any Error)?
    }

    /// What a message the phone is about to send is.
    package enum OutgoingKind: Sendable, Equatable {
        /// Noise msg2.
        case handshake
        /// The post-handshake message (phone seq 0).
        case postHandshake
        /// An update message.
        case update
        /// The reply to the client's request.
        case reply
    }

    /// Called for every client message, after the session has handled it.
    package var clientMessage: @Sendable (ClientMessage) -> Void = { _ in }
    /// Called before the phone sends a message; returns the messages to send in its place.
    package var outgoing: @Sendable (OutgoingKind, [UInt8]) -> [[UInt8]] = { [$1] }
    /// The routing ID the phone advertises, given the one the relay assigned.
    package var advertisedRoutingID: @Sendable (RoutingID) -> RoutingID = { $0 }
    /// Adjusts the session: revision, crypter construction, features, update messages.
    package var configureSession: @Sendable (inout AuthenticatorSession.Configuration) -> Void = { _ in }
    /// Close the tunnel right after sending the reply, without waiting for the client's shutdown.
    package var hangsUpAfterReply = false
    /// Never answer the request: wait until the client gives up and closes the tunnel.
    package var neverAnswers = false
    /// The largest message the tunnel client may send or receive, if not the default 1 MiB (a
    /// fault sends a larger one).
    package var maxMessageSize: Int?
    /// How long the phone waits after the client's shutdown before it sends the update that a
    /// session configured with `sendsUpdateLate` sends then (protocol.md §7.5); `.zero` sends it
    /// at once. The wait ends early if the client closes the tunnel.
    package var lateUpdateDelay: Duration = .zero
    /// The clock ``lateUpdateDelay`` and an L2CAP channel's first-message deadline run and are
    /// measured on; tests replace it.
    package var clock: any Clock<Duration> = ContinuousClock()
    /// Called when the client closed the tunnel during ``lateUpdateDelay``, with how long after its
    /// shutdown (on ``clock``); the late update is then not sent and the session ends normally.
    package var clientClosedBeforeLateUpdate: @Sendable (_ afterShutdown: Duration) -> Void = { _ in }
    /// Called once the tunnel has closed, with how (`nil` if no close frame arrived).
    package var tunnelClosed: @Sendable (TunnelCloseInfo?) -> Void = { _ in }

    package init() {}
}
