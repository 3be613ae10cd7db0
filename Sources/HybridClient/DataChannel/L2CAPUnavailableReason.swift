import HybridCore

/// Why a ceremony does not run over the phone's BLE L2CAP channel (CTAP 2.3, protocol.md §3.4),
/// in words a person can act on. The client reports it before it falls back to the tunnel (or
/// fails, under `--channel l2cap`).
public enum L2CAPUnavailableReason: Error, Sendable, Hashable, CustomStringConvertible {
    /// The adapter's abilities could not be read (no kernel adapter, raw HCI refused, the
    /// simulated air); the text says what failed. The QR code does not offer the channel.
    case adapterNotReadable(String)
    /// The controller cannot initiate LE connections: the kernel's LE setting for the adapter is
    /// off (the kernel then refuses every LE connect), or the controller lacks the command. The
    /// QR code does not offer the channel.
    case noLEConnections
    /// The controller cannot receive extended adverts, which carry the PSM (§3.4). The QR code
    /// does not offer the channel.
    case noExtendedAdvertReception
    /// The QR code offered the channel, but the phone's advert carried no PSM: the phone did not
    /// offer one (a phone before CTAP 2.3, or its own Bluetooth setting).
    case phoneOfferedNone
    /// Connecting to the phone's PSM failed; the text is the error (refused, unreachable).
    case connectFailed(String)
    /// The phone's channel was not open within `limit` (`--l2cap-timeout`).
    case timedOut(limit: Duration)
    /// The channel opened but the other end sent no handshake message within `limit`
    /// (`--l2cap-timeout`): a silent stranger on the advertised PSM, or a phone that hung.
    case noHandshake(limit: Duration)

    /// One line for a user: the cause, and what to do about it where something can be done.
    public var description: String {
        switch self {
        case .adapterNotReadable(let why):
            "the Bluetooth adapter's L2CAP abilities could not be read (\(why))"
        case .noLEConnections:
            "the Bluetooth controller cannot make LE connections: its LE setting is off (`btmgmt le on`; bluetoothd turns it on) or it lacks LE Create Connection"
        case .noExtendedAdvertReception:
            "the Bluetooth controller cannot receive extended adverts (Bluetooth 5), which carry the phone's BLE L2CAP channel"
        case .phoneOfferedNone:
            "the phone did not offer a BLE L2CAP channel (it may predate CTAP 2.3)"
        case .connectFailed(let why):
            "connecting to the phone's BLE L2CAP channel failed: \(why)"
        case .timedOut(let limit):
            "the phone's BLE L2CAP channel did not open within \(limit) (--l2cap-timeout)"
        case .noHandshake(let limit):
            "the BLE L2CAP channel opened but sent no handshake message within \(limit) (--l2cap-timeout)"
        }
    }
}

extension BluetoothCapabilities {
    /// Why these abilities rule the L2CAP channel out, or `nil` when they allow it.
    package var l2capUnavailableReason: L2CAPUnavailableReason? {
        guard applies else { return nil }
        if let readFailure { return .adapterNotReadable(readFailure) }
        if !leConnections { return .noLEConnections }
        if !extendedAdvertisingReception { return .noExtendedAdvertReception }
        return nil
    }
}
