import HybridAuthenticator
import HybridCore
import HybridTransport

/// The conformance phone's ``AuthenticatorTap``: each hook is a value that ``PhoneConformanceRun``,
/// the ``PhoneProfile`` and the ``PhoneFault`` set; the defaults observe nothing and change
/// nothing.
struct ConformancePhoneTap: AuthenticatorTap {
    /// Sees every client message, after the session has handled it.
    var observeClientMessage: @Sendable (TappedClientMessage) -> Void = { _ in }
    /// The messages to send in place of one the phone is about to send.
    var replaceOutgoing: @Sendable (PhoneMessageKind, [UInt8]) -> [[UInt8]] = { [$1] }
    /// The JSON answer to send in place of the wallet's.
    var replaceJSONReply: @Sendable ([UInt8]) -> [UInt8] = { $0 }
    /// The routing ID to advertise, given the one the relay assigned.
    var routingIDToAdvertise: @Sendable (RoutingID) -> RoutingID = { $0 }
    /// Adjusts the session: revision, crypter construction, features, update messages.
    var adjustSession: @Sendable (inout AuthenticatorSession.Configuration) -> Void = { _ in }
    var hangsUpAfterReply = false
    var neverAnswers = false
    var maxMessageSize: Int?
    var lateUpdateDelay: Duration = .zero
    /// Sees how long after its shutdown the client closed, when it did before the late update.
    var observeClosedBeforeLateUpdate: @Sendable (Duration) -> Void = { _ in }
    /// Sees how the tunnel closed.
    var observeTunnelClosed: @Sendable (TunnelCloseInfo?) -> Void = { _ in }

    func clientMessage(_ message: TappedClientMessage) { observeClientMessage(message) }
    func outgoing(_ kind: PhoneMessageKind, _ bytes: [UInt8]) -> [[UInt8]] { replaceOutgoing(kind, bytes) }
    func jsonReply(_ bytes: [UInt8]) -> [UInt8] { replaceJSONReply(bytes) }
    func advertisedRoutingID(_ assigned: RoutingID) -> RoutingID { routingIDToAdvertise(assigned) }
    func configureSession(_ configuration: inout AuthenticatorSession.Configuration) { adjustSession(&configuration) }
    func clientClosedBeforeLateUpdate(_ afterShutdown: Duration) { observeClosedBeforeLateUpdate(afterShutdown) }
    func tunnelClosed(_ close: TunnelCloseInfo?) { observeTunnelClosed(close) }
}
