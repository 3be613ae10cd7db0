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
