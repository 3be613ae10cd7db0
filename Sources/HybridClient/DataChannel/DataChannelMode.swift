/// Which data channel a client may use for a QR-initiated session (`--channel`, protocol.md §3.4).
public enum DataChannelMode: String, CaseIterable, Hashable, Sendable {
    /// BLE L2CAP when the phone advertises a PSM and the adapter can, else the tunnel; a failed
    /// L2CAP attempt falls back to the tunnel, as does a channel that fails before the handshake
    /// completes (the PSM suffix is not authenticated, protocol.md §3.4).
    case auto
    /// The cloud tunnel only: QR key 6 is not sent.
    case tunnel
    /// BLE L2CAP only: no fallback.
    case l2cap
}
