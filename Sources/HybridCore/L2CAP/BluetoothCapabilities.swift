/// What the local Bluetooth adapter can do that matters for the CTAP 2.3 L2CAP channel.
package struct BluetoothCapabilities: Hashable, Sendable {
    /// The adapter can initiate LE connections (and so LE credit-based L2CAP channels).
    package var leConnections: Bool
    /// The adapter can receive extended adverts, needed for 24 bytes of service data (§3.4).
    package var extendedAdvertisingReception: Bool
    /// Why the abilities could not be read (both are then false), or `nil` if they were.
    package var readFailure: String?
    /// Whether a Bluetooth adapter is involved at all: not for the simulated air, which has no
    /// L2CAP channels by design (nothing for a person to fix, so no reason is given).
    package var applies = true

    /// No adapter involved (the simulated air): no L2CAP channel, and no reason to give.
    package static let notApplicable: BluetoothCapabilities = {
        var none = BluetoothCapabilities(leConnections: false, extendedAdvertisingReception: false)
        none.applies = false
        return none
    }()

    package init(leConnections: Bool, extendedAdvertisingReception: Bool, readFailure: String? = nil) {
        self.leConnections = leConnections
        self.extendedAdvertisingReception = extendedAdvertisingReception
        self.readFailure = readFailure
    }

    /// Whether the client can use a phone's L2CAP channel at all.
    package var canUseL2CAP: Bool { leConnections && extendedAdvertisingReception }
}

/// QR key 6 for a client (protocol.md §1.3, §10.1).
///
/// Key 6 is an array only in CTAP 2.3; Play Services before 2.3 reads it as a bool and rejects an
/// array. So the key is written only when the client really offers BLE L2CAP: `[0, 1]` with an
/// able adapter and `--channel auto` or `l2cap`, and no key 6 at all otherwise.
package enum QRChannelOffer {
    /// The channels to write in key 6, or `nil` to leave the key out.
    ///
    /// - Throws: ``DataChannelSelectionError/adapterCannotOfferL2CAP(_:)`` for `.l2cap` without an able adapter.
    package static func channels(
        mode: DataChannelMode, capabilities: BluetoothCapabilities
    ) throws(DataChannelSelectionError) -> [DataTransferChannel]? {
        switch mode {
        case .tunnel:
            return nil
        case .auto:
            return capabilities.canUseL2CAP ? [.cloudTunnel, .bleL2CAP] : nil
        case .l2cap:
            guard capabilities.canUseL2CAP else {
                throw .adapterCannotOfferL2CAP(
                    capabilities.l2capUnavailableReason ?? .adapterNotReadable("no Bluetooth adapter is involved"))
            }
            return [.cloudTunnel, .bleL2CAP]
        }
    }
}
