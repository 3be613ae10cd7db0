import HybridCore

/// Progress of one ``HybridClientRunner`` call, in order. The library never prints: the caller
/// shows these (the CLI as text, or as JSON lines with `--json`).
public enum HybridClientEvent: Sendable, Hashable {
    /// Show this `FIDO:/…` text as a QR code; the phone scans it.
    case qr(url: String)
    /// Scanning BLE for the phone's advert. `timeout` is the whole call's limit.
    case waitingForDevice(timeout: Duration)
    /// A FIDO advert arrived that is not for this QR code: a phone that scanned another (older)
    /// QR code, or another computer's phone nearby. Scanning goes on; said once per ceremony, so
    /// that a timeout that follows is not read as "no phone advertised at all".
    case advertForAnotherQRCode
    /// The phone's advert arrived; opening the tunnel it names on `host` (after any test override).
    case connecting(domain: TunnelDomainID, host: String)
    /// The phone's advert offers a BLE L2CAP channel (CTAP 2.3, protocol.md §3.4); connecting to
    /// it on `psm` (the tunnel is the fallback under `--channel auto`).
    case connectingL2CAP(psm: UInt16)
    /// The phone's BLE L2CAP channel is not used, for this reason: the adapter cannot (with the
    /// QR code), the phone offered none, or connecting failed or took too long (then the tunnel
    /// follows, under `--channel auto`).
    case l2capUnavailable(L2CAPUnavailableReason)
    /// The session runs on this data channel: the tunnel, or the phone's BLE L2CAP channel.
    case channel(DataChannelKind)
    /// The tunnel is open; running the Noise handshake.
    case handshake
    /// The request is on the phone; waiting for the user to approve it there.
    case waitingForApproval
    /// The phone answered and the response is ready.
    case done
    /// The response has been delivered; the tunnel stays open for up to `limit` for a late
    /// update, until the phone closes it (protocol.md §7.5).
    case lingering(limit: Duration)

    /// The stage this event starts, for timeout messages.
    public var stage: HybridClientStage {
        switch self {
        case .qr, .waitingForDevice, .advertForAnotherQRCode: .waitingForDevice
        case .connecting, .connectingL2CAP, .l2capUnavailable, .channel: .connecting
        case .handshake: .handshake
        case .waitingForApproval: .waitingForApproval
        case .done, .lingering: .done
        }
    }
}

/// Where a ceremony stands, as reported in ``HybridClientError/timedOut(stage:after:)``.
public enum HybridClientStage: String, Sendable, Hashable {
    /// No advert for this QR code has arrived yet.
    case waitingForDevice
    /// Opening the tunnel WebSocket.
    case connecting
    /// The tunnel is open, the phone has not completed the handshake.
    case handshake
    /// The request is on the phone, no answer yet.
    case waitingForApproval
    /// Finished.
    case done
}
