import HybridBluetooth
import HybridCore

/// What the client needs of its adapter for the CTAP 2.3 L2CAP channel (protocol.md §3.4): whether
/// it can offer the channel, and how to open it to an advert's sender. Tests replace both.
package struct L2CAPClientSupport: Sendable {
    /// What the adapter can do (decides QR key 6).
    package var capabilities: @Sendable () async -> BluetoothCapabilities
    /// Opens the channel to the advert's sender on the PSM, within the time given.
    package var connect: @Sendable (BLEAdvertisement, UInt16, Duration) async throws -> L2CAPChannel

    package init(
        capabilities: @escaping @Sendable () async -> BluetoothCapabilities,
        connect: @escaping @Sendable (BLEAdvertisement, UInt16, Duration) async throws -> L2CAPChannel
    ) {
        self.capabilities = capabilities
        self.connect = connect
    }
}
