import Foundation
import HybridCore

/// An outcome and what was observed, ready to record against a check.
package struct RelayVerdict: Sendable, Equatable {
    package let outcome: CheckOutcome
    package let observed: String

    package init(_ outcome: CheckOutcome, _ observed: String) {
        self.outcome = outcome
        self.observed = observed
    }

    static func holds(_ holds: Bool, _ observed: String) -> RelayVerdict { .init(holds ? .pass : .fail, observed) }
}

/// Judges what a relay did (protocol.md §5): pure functions from observed exchanges to verdicts.
package enum RelayJudge {
    /// The `Sec-WebSocket-Accept` value a server must send for `key`.
    package static func expectedAccept(forKey key: String) -> String {
        TunnelWebSocket.acceptValue(forKey: key)
    }

    /// `relay.upgrade.valid`: 101, `Upgrade: websocket`, `Connection: Upgrade`, the right accept value.
    package static func upgrade(_ outcome: RelayRequestOutcome, key: String) -> RelayVerdict {
        guard let head = outcome.head else { return .init(.fail, outcome.summary) }
        guard head.status == 101 else { return .init(.fail, "answered \(head.statusText), expected 101") }
        var problems: [String] = []
        if !head.values("Upgrade").contains(where: { $0.lowercased() == "websocket" }) {
            problems.append("Upgrade is \(quoted(head.values("Upgrade")))")
        }
        let connectionTokens = head.values("Connection").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if !connectionTokens.contains("upgrade") {
            problems.append("Connection is \(quoted(head.values("Connection")))")
        }
        let accept = head.values("Sec-WebSocket-Accept")
        if accept != [expectedAccept(forKey: key)] { problems.append("Sec-WebSocket-Accept is \(quoted(accept))") }
        return problems.isEmpty
            ? .init(.pass, "101 \(head.reason)".trimmingCharacters(in: .whitespaces))
            : .init(.fail, problems.joined(separator: "; "))
    }

    /// `relay.subprotocol.echoed` and the subprotocol half of `relay.connect.pairs`.
    package static func subprotocol(_ outcome: RelayRequestOutcome) -> RelayVerdict {
        guard let head = outcome.head else { return .init(.fail, outcome.summary) }
        guard head.status == 101 else { return .init(.fail, "answered \(head.statusText), expected 101") }
        let values = head.values("Sec-WebSocket-Protocol")
        return .holds(values == [TunnelWebSocket.subprotocol], "Sec-WebSocket-Protocol: \(quoted(values))")
    }

    /// `relay.routing-id.header`: exactly one header, exactly 6 hex digits; returns the routing ID.
    package static func routingIDHeader(_ outcome: RelayRequestOutcome) -> (RelayVerdict, RoutingID?) {
        guard let head = outcome.head, head.status == 101 else {
            return (.init(.fail, "no 101 to read it from: \(outcome.summary)"), nil)
        }
        let values = head.values(TunnelWebSocket.routingIDHeader)
        switch values.count {
        case 0: return (.init(.fail, "no \(TunnelWebSocket.routingIDHeader) header"), nil)
        case 1: break
        default: return (.init(.fail, "\(values.count) headers: \(quoted(values))"), nil)
        }
        let value = values[0]
        guard value.utf8.count == 2 * RoutingID.byteCount, let routingID = RoutingID(hex: value) else {
            return (.init(.fail, "\(TunnelWebSocket.routingIDHeader): \(quoted(values)) is not 6 hex digits"), nil)
        }
        return (.init(.pass, "\(TunnelWebSocket.routingIDHeader): \(value)"), routingID)
    }

    /// `relay.routing-id.upper-case`: the header value has no lower-case hex letter.
    package static func routingIDCase(_ value: String) -> RelayVerdict {
        .holds(!value.contains { $0.isLowercase }, "\(TunnelWebSocket.routingIDHeader): \(value)")
    }

    /// A check that expects one status (404, 409).
    package static func status(_ outcome: RelayRequestOutcome, expected: Int) -> RelayVerdict {
        guard let head = outcome.head else { return .init(.fail, "\(outcome.summary), expected \(expected)") }
        return head.status == expected
            ? .init(.pass, head.statusText) : .init(.fail, "answered \(head.statusText), expected \(expected)")
    }

    /// A check that expects each labelled request to be refused (any answer but 101; a closed
    /// connection counts as refused; no answer at all fails).
    package static func refused(_ outcomes: [(label: String, outcome: RelayRequestOutcome)]) -> RelayVerdict {
        let upgraded = outcomes.filter { $0.outcome.upgraded }
        let failed = outcomes.filter { if case .failed = $0.outcome { true } else { false } }
        let observed = outcomes.map { "\($0.label): \($0.outcome.summary)" }.joined(separator: "; ")
        if !upgraded.isEmpty {
            return .init(.fail, "upgraded " + upgraded.map(\.label).joined(separator: ", ") + " — " + observed)
        }
        if !failed.isEmpty { return .init(.fail, observed) }
        return .init(.pass, observed)
    }

    /// The forwarding checks: `received` must equal `sent`, message by message.
    ///
    /// - Parameter ended: how the receiving side's stream ended early, if it did (close code, timeout).
    package static func forwarding(sent: [[UInt8]], received: [[UInt8]], ended: String? = nil) -> RelayVerdict {
        let sizes = sent.map { String($0.count) }.joined(separator: ", ")
        for (index, message) in received.enumerated() {
            guard index < sent.count else {
                return .init(.fail, "\(received.count) messages arrived, \(sent.count) were sent")
            }
            guard message == sent[index] else {
                if let other = sent.firstIndex(of: message) {
                    return .init(
                        .fail, "message \(index + 1) arrived as sent message \(other + 1) (reordered or dropped)")
                }
                return .init(
                    .fail, "message \(index + 1) differs: \(message.count) bytes arrived, \(sent[index].count) sent")
            }
        }
        guard received.count == sent.count else {
            let why = ended.map { " (\($0))" } ?? ""
            return .init(.fail, "\(received.count) of \(sent.count) messages arrived\(why)")
        }
        return .init(.pass, "\(sent.count) messages of \(sizes) bytes arrived verbatim, in order")
    }

    /// Close codes a relay may send a side whose tunnel ended normally: 1000, 1001, or the
    /// application range 4000–4999 (RFC 6455 §7.4; 1005 and 1006 must never be sent).
    package static func isAcceptableCloseCode(_ code: UInt16) -> Bool {
        code == 1000 || code == 1001 || (4000...4999).contains(code)
    }

    /// `relay.close.propagated` and `relay.close.drop-propagated`, one labelled observation per direction.
    package static func closePropagated(_ observations: [(label: String, close: RelayCloseObservation)]) -> RelayVerdict
    {
        var ok = true
        var parts: [String] = []
        for (label, close) in observations {
            let good = close.closed && close.sawCloseFrame && close.code.map(isAcceptableCloseCode) == true
            ok = ok && good
            parts.append("\(label): \(close.summary)")
        }
        return .holds(ok, parts.joined(separator: "; "))
    }

    /// `relay.close.echoed`: the relay answered our close frame with one.
    package static func closeEchoed(_ close: RelayCloseObservation, sent code: UInt16) -> RelayVerdict {
        .holds(close.sawCloseFrame, "sent close \(code), relay answered: \(close.summary)")
    }

    /// `relay.tls.version`: `version` is the negotiated protocol, e.g. `TLS 1.3`.
    package static func tlsVersion(_ version: TLSProtocolVersion?) -> RelayVerdict {
        guard let version else { return .init(.fail, "no TLS session was established") }
        return .holds(version >= .tls12, "negotiated \(version)")
    }

    /// `relay.tls.old-refused`: a handshake limited to TLS 1.0/1.1 must not succeed.
    package static func oldTLSRefused(negotiated: TLSProtocolVersion?, error: String?) -> RelayVerdict {
        if let negotiated { return .init(.fail, "accepted \(negotiated)") }
        return .init(.pass, "handshake refused: \(error ?? "no session")")
    }

    /// A duration that must be at least `minimum` (`nil`: not measured before the deadline).
    package static func atLeast(_ observed: Duration?, _ minimum: Duration, what: String) -> RelayVerdict {
        guard let observed else { return .init(.pass, "\(what) still open at the deadline") }
        return .holds(observed >= minimum, "\(what) after \(seconds(observed)), minimum \(seconds(minimum))")
    }

    /// A duration that must be at most `maximum` (`nil`: it had not happened by the deadline).
    package static func atMost(_ observed: Duration?, _ maximum: Duration, what: String) -> RelayVerdict {
        guard let observed else { return .init(.fail, "not \(what) within \(seconds(maximum))") }
        return .holds(observed <= maximum, "\(what) after \(seconds(observed)), maximum \(seconds(maximum))")
    }

    /// `12.3 s`.
    package static func seconds(_ duration: Duration) -> String {
        let (whole, attoseconds) = duration.components
        return String(format: "%.1f s", Double(whole) + Double(attoseconds) / 1e18)
    }

    private static func quoted(_ values: [String]) -> String {
        values.isEmpty ? "absent" : values.map { "\"\($0)\"" }.joined(separator: ", ")
    }
}

/// A TLS protocol version as the report names it, comparable by age.
package enum TLSProtocolVersion: Int, Sendable, Comparable, CustomStringConvertible {
    case tls10 = 10
    case tls11, tls12, tls13

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    package var description: String {
        switch self {
        case .tls10: "TLS 1.0"
        case .tls11: "TLS 1.1"
        case .tls12: "TLS 1.2"
        case .tls13: "TLS 1.3"
        }
    }
}
