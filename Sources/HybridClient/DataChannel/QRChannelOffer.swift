import HybridCore

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
