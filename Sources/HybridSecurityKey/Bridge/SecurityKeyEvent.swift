import HybridCTAP
import HybridClient
import HybridCore

/// What the bridge reports while it serves programs; the executable shows these (terminal,
/// JSON lines, desktop notifications). Never carries request or response payloads.
public enum SecurityKeyEvent: Sendable, Equatable {
    /// A request goes to the phone: `command` for `rpID` (nil if the request names none). The
    /// ceremony's events follow.
    case forwarding(command: CTAPCommand, rpID: String?)
    /// Progress of the phone ceremony for a request (the QR code first).
    case ceremony(HybridClientEvent)
    /// A request goes to the phone with these rewrites (`PhoneRequestNormalizer`, a list
    /// restored after a probe); one short phrase each.
    case rewritten(command: CTAPCommand, rewrites: [String])
    /// The phone answered a forwarded request with `status` (success or the phone's error).
    case done(command: CTAPCommand, status: CTAPStatusCode)
    /// A forwarded request failed before the phone answered; the program got `status`.
    case failed(command: CTAPCommand, status: CTAPStatusCode, message: String)
    /// Answered without the phone (getInfo, probes, unsupported commands, the cache).
    case answeredLocally(command: CTAPCommand, status: CTAPStatusCode, reason: String)
    /// A request ended because the program cancelled it or went away.
    case cancelled(CTAPHIDCancelReason)
    /// The program asked the key to identify itself.
    case wink
    /// The tunnel of a forwarded request closed after its linger for a late update (protocol.md
    /// §7.5); the program had its answer already.
    case tunnelClosed(HybridSessionEnd)
    /// The Bluetooth adapter went away for `unreachableBecause` (requests that need the phone are
    /// refused until it is back), or came back (`nil`).
    case phoneReachability(unreachableBecause: String?)
}
