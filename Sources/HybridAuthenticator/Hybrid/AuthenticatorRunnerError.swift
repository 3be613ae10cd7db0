import HybridBluetooth
import HybridCore
import HybridTransport

/// Why ``AuthenticatorRunner/run(qrCode:onEvent:)`` ended without finishing a session. Every case
/// reads as one line for a user (``description``).
public enum AuthenticatorRunnerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not a valid `FIDO:/…` QR code.
    case invalidQRCode(QRCodeError)
    /// The QR code's timestamp (key 3) is `secondsOff` seconds from now, more than `limit` allows.
    /// Positive: the code is from the past.
    case staleQRCode(secondsOff: Int64, limit: Duration)
    /// The QR code has no timestamp (key 3), so its age is unknown: treated as too old.
    case undatedQRCode
    /// The domain ID is 2–255: neither assigned nor hashed (protocol.md §4.1).
    case invalidDomainID(UInt16)
    /// An assigned domain ID the client does not know: it is not below QR key 2 (protocol.md §10.8).
    case domainNotKnownToClient(domainID: UInt16, knownDomains: Int64)
    /// Opening or using the tunnel WebSocket failed.
    case tunnel(TunnelClientError)
    /// The tunnel closed before the session was over; carries the server's close frame, if any.
    case tunnelClosedEarly(clientConnected: Bool, close: TunnelCloseInfo?)
    /// The client's BLE L2CAP channel closed before the session was over.
    case l2capClosedEarly(clientConnected: Bool)
    /// The client's BLE L2CAP channel broke its framing (protocol.md §10.9).
    case l2capFraming(L2CAPFramingError)
    /// No client came through the tunnel while advertising for this long.
    case noClientConnected(within: Duration)
    /// The whole run took longer than its time limit.
    case timedOut(after: Duration)
    /// Advertising over Bluetooth failed.
    case bluetooth(BluetoothError)
    /// The client broke the hybrid protocol (handshake, decryption, framing).
    case session(SessionError)
    /// The client sent a request this authenticator does not serve (a JSON / digital-credential
    /// request, message type 03); the tunnel was closed normally.
    case unsupportedRequest(String)
    /// The run was cancelled (Ctrl-C).
    case cancelled
    /// The random source failed: too few bytes, or no valid P-256 key from them.
    case randomSourceFailed
    /// The session state machine asked for an action the runner does not expect at that point (a bug).
    case unexpectedSessionAction
    /// An error of a type the runner does not classify.
    case unexpected(UnexpectedError)

    /// One line for a user.
    public var description: String {
        switch self {
        case .invalidQRCode(let error):
            return "not a valid FIDO:/ QR code: \(Self.describe(error))"
        case .staleQRCode(let secondsOff, let limit):
            let direction = secondsOff >= 0 ? "\(secondsOff) s old" : "\(-secondsOff) s in the future"
            return
                "the QR code is stale: its timestamp is \(direction), more than \(limit.wholeSeconds) s away from now "
                + "(scan a fresh code, or check this machine's clock)"
        case .undatedQRCode:
            return "the QR code has no timestamp (key 3), so it may be old: scan a fresh code from a current client "
                + "(or pass --accept-qr-without-timestamp for an old client that omits it)"
        case .invalidDomainID(let id):
            return "tunnel domain ID \(id) is invalid: use 0 or 1 (assigned) or 256-65535 (hashed)"
        case .domainNotKnownToClient(let id, let known):
            return "the client knows only \(known) assigned tunnel domain(s) (QR key 2), so it cannot use "
                + "assigned domain \(id): choose a lower --domain-id or a hashed one (>= 256)"
        case .tunnel(let error):
            return "\(error)"
        case .tunnelClosedEarly(let connected, let close):
            let when = connected ? "before the session was over" : "before a client connected"
            return "the tunnel server closed the tunnel \(when)" + (close.map { " (\($0))" } ?? "")
        case .l2capClosedEarly(let connected):
            return "the client closed the BLE L2CAP channel "
                + (connected ? "before the session was over" : "before sending anything")
        case .l2capFraming(let error):
            return "the client's BLE L2CAP channel broke its framing: \(error)"
        case .noClientConnected(let window):
            return "no client connected within \(window.wholeSeconds) s of advertising (is the client scanning "
                + "for Bluetooth adverts nearby, on the same --ble backend?)"
        case .timedOut(let limit):
            return "gave up after \(limit.wholeSeconds) s"
        case .bluetooth(let error):
            return "\(error) (for a loopback demo use --ble sim)"
        case .session(let error):
            return "hybrid session with the client failed: \(error)"
        case .unsupportedRequest(let what):
            return "unsupported request: \(what)"
        case .cancelled:
            return "cancelled"
        case .randomSourceFailed:
            return "the random source failed (too few bytes, or no valid P-256 key)"
        case .unexpectedSessionAction:
            return "internal error: unexpected session action"
        case .unexpected(let error):
            return error.description
        }
    }

    /// Classifies any error thrown while running; `cancelled` tells whether the run's task was cancelled.
    init(classifying error: any Error, cancelled: Bool) {
        switch error {
        case _ where cancelled: self = .cancelled
        case let error as AuthenticatorRunnerError: self = error
        case is CancellationError: self = .cancelled
        case let error as QRCodeError: self = .invalidQRCode(error)
        case let error as TunnelClientError: self = .tunnel(error)
        case let error as BluetoothError: self = .bluetooth(error)
        case let error as SessionError: self = .session(error)
        case let error as L2CAPFramingError: self = .l2capFraming(error)
        default: self = .unexpected(UnexpectedError(error))
        }
    }

    private static func describe(_ error: QRCodeError) -> String {
        switch error {
        case .invalidPrefix: "it does not start with FIDO:/"
        case .digits(let error): "bad digits (\(error))"
        case .cbor(let error): "bad CBOR (\(error))"
        case .notAMap: "its CBOR is not a map"
        case .missingKey(let key): "key \(key) is missing"
        case .wrongType(let key): "key \(key) has the wrong type"
        case .invalidSecretLength(let length): "the secret is \(length) bytes, not 16"
        case .invalidPublicKeyLength(let length): "the public key is \(length) bytes, not 33"
        case .invalidPublicKey: "the public key is not a P-256 point"
        }
    }
}

extension Duration {
    /// Whole seconds, for messages.
    var wholeSeconds: Int64 { components.seconds }
}
