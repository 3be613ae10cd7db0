import HybridBluetooth
import HybridCTAP
import HybridCore
import HybridTransport

/// Why a hybrid ceremony failed. Each case says what happened in words a user can act on.
///
/// The phone's CTAP2 status is mapped to a case when it has a clear meaning (no credentials,
/// denied, timed out, excluded) and kept as ``authenticatorFailed(_:)`` otherwise.
public enum HybridClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The overall timeout passed; `stage` is where the ceremony stood.
    case timedOut(stage: HybridClientStage, after: Duration)
    /// The phone has no passkey for this site (CTAP2_ERR_NO_CREDENTIALS, 0x2E).
    case noCredentials
    /// The user (or the phone) declined (CTAP2_ERR_OPERATION_DENIED, 0x27, or NOT_ALLOWED 0x30).
    case operationDenied
    /// A passkey from the exclude list already exists on the phone (CTAP2_ERR_CREDENTIAL_EXCLUDED, 0x19).
    case credentialExcluded
    /// The phone gave up waiting for the user (0x2F user action timeout, 0x3A action timeout, 0x05).
    case authenticatorTimedOut
    /// Any other CTAP2 error status from the phone.
    case authenticatorFailed(CTAPStatusCode)
    /// The phone does not offer CTAP (post-handshake features lack `"ctap"`).
    case ctapUnsupported
    /// The phone does not offer digital credentials (post-handshake features lack `"dc"`); the
    /// request was not sent.
    case digitalCredentialsUnsupported
    /// The phone answered a digital-credential request with this error string (`USER_CANCELED`,
    /// `NO_CREDENTIAL`, `DEVICE_ABORTED`, or another, protocol.md §7.8).
    case digitalCredentialRefused(String)
    /// The phone's answer is malformed or does not fit the request (carries the reason).
    case invalidResponse(InvalidResponseReason)
    /// The site requires an extension behaviour the phone cannot provide (its getInfo says so).
    case extensionUnsupported(ClientExtensionError)
    /// Scanning for the phone's advert failed.
    case bluetooth(BluetoothError)
    /// The scanner stopped before the phone's advert arrived.
    case scanEnded
    /// No data channel could be used (`--channel l2cap` without an able adapter, without a PSM in
    /// the advert, or with the L2CAP connection failing).
    case dataChannel(DataChannelSelectionError)
    /// The phone's BLE L2CAP channel carried bytes that are not a framed message (§10.9).
    case l2capFraming(L2CAPFramingError)
    /// The tunnel WebSocket could not be opened or broke (refused, HTTP 404/410, TLS, …).
    case tunnel(TunnelClientError)
    /// The session broke: handshake or decryption failure, a bad frame, the tunnel closed early.
    case session(SessionError)

    /// Maps a non-OK CTAP2 status.
    package init(status: CTAPStatusCode) {
        switch status {
        case .noCredentials: self = .noCredentials
        case .operationDenied, .notAllowed: self = .operationDenied
        case .credentialExcluded: self = .credentialExcluded
        case .userActionTimeout, .actionTimeout, .timeout: self = .authenticatorTimedOut
        default: self = .authenticatorFailed(status)
        }
    }

    /// The CTAP2 status behind this error, if the phone sent one.
    public var ctapStatus: CTAPStatusCode? {
        switch self {
        case .noCredentials: .noCredentials
        case .operationDenied: .operationDenied
        case .credentialExcluded: .credentialExcluded
        case .authenticatorTimedOut: .userActionTimeout
        case .authenticatorFailed(let status): status
        default: nil
        }
    }

    /// One line for a user.
    public var description: String {
        switch self {
        case .timedOut(let stage, let after):
            "timed out after \(after.formattedSeconds) " + Self.timeoutDetail(stage)
        case .noCredentials: "the phone has no passkey for this site"
        case .operationDenied: "the request was declined on the phone"
        case .credentialExcluded: "the phone already has a passkey for this account"
        case .authenticatorTimedOut: "the phone gave up waiting for approval"
        case .authenticatorFailed(let status): "the phone answered with an error: \(status)"
        case .ctapUnsupported: "the phone does not offer passkeys (no \"ctap\" feature)"
        case .digitalCredentialsUnsupported: "the phone does not offer digital credentials (no \"dc\" feature)"
        case .digitalCredentialRefused(let code): "the phone refused the digital credential request (\(code))"
        case .invalidResponse(let reason): "the phone's answer is invalid: \(reason)"
        case .extensionUnsupported(let error): "\(error)"
        case .bluetooth(let error): "Bluetooth: \(error)"
        case .scanEnded: "Bluetooth scanning stopped before the phone was found"
        case .dataChannel(.adapterCannotOfferL2CAP(let why)): "--channel l2cap: \(why)"
        case .dataChannel(.noPSMInAdvert): "--channel l2cap: the phone offered no BLE L2CAP channel"
        case .l2capFraming(let error): "the phone's BLE L2CAP channel failed: \(error)"
        case .dataChannel(.l2capUnavailable): "--channel l2cap: the phone's BLE L2CAP channel could not be opened"
        case .tunnel(let error): "\(error)"
        case .session(let error): "session with the phone failed: \(error)"
        }
    }

    private static func timeoutDetail(_ stage: HybridClientStage) -> String {
        switch stage {
        case .waitingForDevice: "waiting for the phone (no Bluetooth advert for this QR code arrived)"
        case .connecting: "connecting to the phone (tunnel server or BLE L2CAP)"
        case .handshake: "waiting for the phone's handshake"
        case .waitingForApproval: "waiting for approval on the phone"
        case .done: "finishing"
        }
    }
}

/// Why the phone's answer is unusable (``HybridClientError/invalidResponse(_:)``).
public enum InvalidResponseReason: Hashable, Sendable, CustomStringConvertible {
    /// The reply is not valid CTAP2: its status byte, its CBOR or a field of its map.
    case ctap(CTAPError)
    /// The reply parses but does not fit the request (wrong RP, missing fields for the ceremony).
    case mapping(ResponseMappingError)
    /// The phone answered a CTAP request with a non-CTAP (JSON) message.
    case notCTAP
    /// The phone's JSON answer to a digital-credential request is not one (protocol.md §7.8).
    case digitalCredential(DigitalCredentialEnvelopeError)
    /// The session ended without a reply to the request.
    case noReply
    /// A success status with no response map.
    case missingResponseMap
    /// An error of a type the client does not classify.
    case unexpected(UnexpectedError)

    /// One line for a user.
    public var description: String {
        switch self {
        case .ctap(let error): "\(error)"
        case .mapping(let error): error.description
        case .notCTAP: "not CTAP"
        case .digitalCredential(let error): "\(error)"
        case .noReply: "no reply"
        case .missingResponseMap: "success without a response map"
        case .unexpected(let error): error.description
        }
    }
}

extension Duration {
    /// `12 s`, `1.5 s`.
    package var formattedSeconds: String {
        let (seconds, attoseconds) = components
        if attoseconds == 0 { return "\(seconds) s" }
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return "\((value * 10).rounded() / 10) s"
    }
}
