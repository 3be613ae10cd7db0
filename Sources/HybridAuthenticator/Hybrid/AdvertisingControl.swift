import HybridBluetooth

/// The one advertiser of a run, shared by the task that starts the advert and the task that
/// stops it when the client connects; ``stop()`` is also the run's cleanup, so it is safe to call
/// any number of times. Reports ``AuthenticatorEvent/advertising(uuid:serviceData:)`` and
/// ``AuthenticatorEvent/advertisingStopped`` exactly when the state changes.
actor AdvertisingControl {
    private let advertiser: any BLEAdvertiser
    private let connectable: Bool
    private let emit: @Sendable (AuthenticatorEvent) -> Void
    private var isAdvertising = false
    /// Whether ``AuthenticatorEvent/advertising(uuid:serviceData:)`` went out (so its stop is reported too).
    private var announced = false

    /// - Parameter connectable: whether the advert lets the client connect (for the L2CAP channel).
    init(
        advertiser: any BLEAdvertiser, connectable: Bool = false,
        emit: @escaping @Sendable (AuthenticatorEvent) -> Void
    ) {
        self.advertiser = advertiser
        self.connectable = connectable
        self.emit = emit
    }

    /// Puts `serviceData` on the air under UUID 0xFFF9.
    func start(serviceData: [UInt8]) async throws {
        let advert = BLEServiceDataAdvert(
            uuid16: BLEServiceUUID.fido, serviceData: serviceData, connectable: connectable)
        // Marked first: if the start fails or is cancelled half-way, stop() still switches it off.
        isAdvertising = true
        try await advertiser.startAdvertising(advert)
        announced = true
        emit(.advertising(uuid: advert.uuid16, serviceData: serviceData))
    }

    /// Switches advertising off (waiting until it is off) if it was started. Works in a cancelled task.
    func stop() async {
        guard isAdvertising else { return }
        isAdvertising = false
        await advertiser.stopAdvertising()
        if announced {
            announced = false
            emit(.advertisingStopped)
        }
    }
}
