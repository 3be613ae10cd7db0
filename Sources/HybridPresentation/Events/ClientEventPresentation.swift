import HybridClient
import HybridCore

/// How every program shows one ``HybridClientEvent``: its JSON event name and members, and its
/// one sentence for people. `hybrid-client`, `hybrid-security-key`, `hybrid-conformance client`
/// and the QR window all read it from here; docs/client.md ("Events") is the table it follows.
package struct ClientEventPresentation: Sendable {
    /// The JSON `"event"` name.
    package let name: String
    /// The JSON members after `"event"` (``JSONLine/event(_:_:)`` sorts them by key).
    package let members: [(String, JSONLine)]
    /// The sentence for people. For ``HybridClientEvent/qr(url:)`` it does not hold the URL: the QR
    /// code is a secret, shown only by ``QRDisplay``.
    package let sentence: String

    /// What to do with a QR code, wherever one is shown (the terminal, the QR window): the
    /// sentence of ``HybridClientEvent/qr(url:)``.
    package static let scanSentence = "Scan this QR code with your phone's camera"

    /// The presentation of `event`.
    package init(_ event: HybridClientEvent) {
        switch event {
        case .qr(let url):
            name = "qr"
            members = [("url", .string(url))]
            sentence = Self.scanSentence
        case .waitingForDevice(let timeout):
            name = "waitingForDevice"
            members = [("timeoutSeconds", .int(Int(timeout.components.seconds)))]
            sentence = "Waiting for your phone… (Bluetooth must be on; gives up after \(Self.seconds(timeout)))"
        case .advertForAnotherQRCode:
            name = "advertForAnotherQRCode"
            members = []
            sentence = "A phone is advertising for another QR code (an older one?); scan the one shown now"
        case .connecting(let domain, let host):
            name = "connecting"
            members = [("domain", .int(Int(domain.rawValue))), ("host", .string(host))]
            sentence = "Phone found; connecting to \(host)"
        case .connectingL2CAP(let psm):
            name = "connectingL2CAP"
            members = [("psm", .int(Int(psm)))]
            sentence = "Phone found; connecting over Bluetooth (L2CAP PSM \(psm))"
        case .l2capUnavailable(let why):
            name = "l2capUnavailable"
            members = [("reason", .string(why.description))]
            sentence = "Not using Bluetooth L2CAP: \(why)"
        case .channel(let kind):
            name = "channel"
            members = [("channel", .string(kind.rawValue))]
            sentence = "Using the \(kind == .l2cap ? "Bluetooth L2CAP channel" : "tunnel")"
        case .handshake:
            name = "handshake"
            members = []
            sentence = "Connected; securing the session"
        case .waitingForApproval:
            name = "waitingForApproval"
            members = []
            sentence = "Approve on your phone…"
        case .done:
            name = "done"
            members = []
            sentence = "Done"
        case .lingering(let limit):
            name = "lingering"
            members = [("limitSeconds", .int(Int(limit.components.seconds)))]
            sentence = "Keeping the tunnel open for a late update from the phone (up to \(Self.seconds(limit)))"
        }
    }

    /// The event's JSON line: `{"event":NAME,…members}`.
    package var line: JSONLine { .event(name, members) }

    /// `120 s`: a duration in whole seconds, as the sentences write it.
    package static func seconds(_ duration: Duration) -> String { "\(duration.components.seconds) s" }
}

extension ClientEventPresentation {
    /// How the tunnel ended after the answer (``HybridSessionEnd``):
    /// `{"event":"closed","lateUpdates":N,"reason":…}`, with `"message"` when it failed.
    package static func line(for end: HybridSessionEnd) -> JSONLine {
        var members: [(String, JSONLine)] = [("lateUpdates", .int(end.lateUpdates))]
        switch end.reason {
        case .closedAtOnce: members.append(("reason", .string("closedAtOnce")))
        case .phoneClosed: members.append(("reason", .string("phoneClosed")))
        case .lingerExpired: members.append(("reason", .string("lingerExpired")))
        case .cancelled: members.append(("reason", .string("cancelled")))
        case .failed(let error):
            members.append(("reason", .string("failed")))
            members.append(("message", .string(error.description)))
        }
        return .event("closed", members)
    }
}
