import HybridAuthenticator
import HybridBluetooth
import HybridCore
import Synchronization

/// A deliberate fault of the conformance phone, to check that the client fails cleanly and in
/// time (protocol.md §5.4, §7.1).
package enum PhoneFault: String, Sendable, CaseIterable {
    /// The reply's ciphertext has one bit flipped: it cannot authenticate.
    case corruptFrame = "corrupt-frame"
    /// The advert names another routing ID than the relay assigned: the client's connect fails.
    case wrongRoutingID = "wrong-routing-id"
    /// The phone never answers the request.
    case neverAnswer = "never-answer"
    /// The reply is replaced by a message one byte over the 1 MiB limit.
    case oversized
    /// Random bytes instead of the post-handshake message.
    case garbageAfterHandshake = "garbage-after-handshake"
    /// The advert carries an L2CAP PSM (CTAP 2.3) that nobody listens on: a client that offered
    /// L2CAP must fall back to the tunnel and complete the session (protocol.md §3.4, §10.9).
    case closedL2CAPPSM = "closed-l2cap-psm"
    /// For a `dcp` QR code the phone offers `["ctap"]` without `"dc"`: the client must send no JSON
    /// request and end the session (protocol.md §7.2, §7.8).
    case withholdDC = "withhold-dc"
    /// The JSON answer is the phone's error member, `{"response": {"digital": {"error":
    /// "NO_CREDENTIAL"}}}`: the client reports it and ends the session.
    case errorAnswer = "error-answer"
    /// The JSON answer is cut short (not JSON): the client must fail the request and end the session.
    case malformedAnswer = "malformed-answer"
    /// The JSON answer's `response` is an array, not an object: Chromium's `OnComplete` fails it.
    case wrongTypeAnswer = "wrong-type-answer"
    /// The phone opens client messages past the crypter's limit (sequence 2^24 and on) instead of
    /// failing them (protocol.md §7.1): the broken phone of the client mode's
    /// `client.transport.sequence-limit`. It takes effect only at that message, which no browser sends.
    case ignoresSequenceLimit = "ignores-sequence-limit"

    /// Largest WebSocket message a hybrid peer accepts (protocol.md §5.4).
    package static let messageLimit = 1 << 20

    /// Whether the client never reaches the phone's tunnel under this fault.
    package var clientNeverConnects: Bool { self == .wrongRoutingID }

    /// Whether the client is expected to complete the session despite the fault.
    package var clientCompletes: Bool { self == .closedL2CAPPSM }

    /// The JSON answer each answer fault sends in place of the wallet's (protocol.md §7.8).
    var jsonAnswer: [UInt8]? {
        switch self {
        case .errorAnswer: Array(#"{"response":{"digital":{"error":"NO_CREDENTIAL"}}}"#.utf8)
        case .malformedAnswer: Array(#"{"response":{"digital":{"data":{"protocol":"#.utf8)
        case .wrongTypeAnswer: Array(#"{"response":[]}"#.utf8)
        default: nil
        }
    }

    /// Applies the fault to the conformance phone's tap. `injected` is called when the fault takes
    /// effect.
    func apply(to tap: inout ConformancePhoneTap, injected: @escaping @Sendable () -> Void) {
        switch self {
        case .closedL2CAPPSM:
            break  // Not a tap fault: it is applied to the runner.
        case .withholdDC:
            let adjust = tap.adjustSession
            tap.adjustSession = { configuration in
                adjust(&configuration)
                guard configuration.features.contains(.digitalCredentials) else { return }
                configuration.features = [.ctap]
                injected()
            }
        case .errorAnswer, .malformedAnswer, .wrongTypeAnswer:
            let answer = jsonAnswer ?? []
            tap.replaceJSONReply = { _ in
                injected()
                return answer
            }
        case .ignoresSequenceLimit:
            let adjust = tap.adjustSession
            tap.adjustSession = { configuration in
                adjust(&configuration)
                configuration.ignoresSequenceLimit = true
            }
            let observe = tap.observeClientMessage
            let opened = Mutex<UInt64>(0)
            tap.observeClientMessage = { message in
                observe(message)
                guard message.paddedPlaintext != nil else { return }
                // The k-th message that opened (the handshake never does) had sequence k − 1.
                let sequence = opened.withLock { count in
                    defer { count += 1 }
                    return count
                }
                if sequence > UInt64(TransportCrypter.maxSequence) { injected() }
            }
        case .wrongRoutingID:
            tap.routingIDToAdvertise = { routingID in
                injected()
                var bytes = routingID.bytes
                bytes[0] ^= 0xFF
                return RoutingID(bytes: bytes) ?? routingID
            }
        case .neverAnswer:
            tap.neverAnswers = true
            let observe = tap.observeClientMessage
            tap.observeClientMessage = { message in
                observe(message)
                if message.paddedPlaintext?.first == HybridMessageType.ctap.rawValue { injected() }
            }
        case .corruptFrame, .oversized, .garbageAfterHandshake:
            let fault = self
            if fault == .oversized { tap.maxMessageSize = Self.messageLimit + 1 }
            let forward = tap.replaceOutgoing
            tap.replaceOutgoing = { kind, bytes in
                switch (fault, kind) {
                case (.corruptFrame, .reply):
                    injected()
                    var corrupted = bytes
                    corrupted[corrupted.count / 2] ^= 0x01
                    return [corrupted]
                case (.oversized, .reply):
                    injected()
                    return [[UInt8](repeating: 0x5A, count: Self.messageLimit + 1)]
                case (.garbageAfterHandshake, .postHandshake):
                    injected()
                    return [(0..<bytes.count).map { _ in UInt8.random(in: .min ... .max) }]
                default:
                    return forward(kind, bytes)
                }
            }
        }
    }
}

extension PhoneFault {
    /// Applies a fault that lives outside the tap: for ``closedL2CAPPSM``, the runner listens on a
    /// real PSM (so the number is one the kernel hands out), closes it at once, and advertises it.
    /// `injected` is called when the closed PSM is advertised.
    package func apply(to runner: inout AuthenticatorRunner, injected: @escaping @Sendable () -> Void) {
        guard self == .closedL2CAPPSM else { return }
        runner.listenL2CAP = { backend in
            let psm = try await backend.listenL2CAP().psm
            injected()
            return ClosedL2CAPPort(psm: psm)
        }
    }
}

/// A PSM whose listener is closed: no client channel ever arrives.
private struct ClosedL2CAPPort: L2CAPChannelSource {
    let psm: UInt16

    func nextChannel() async throws -> L2CAPChannel {
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}
