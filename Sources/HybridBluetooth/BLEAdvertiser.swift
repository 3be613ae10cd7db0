/// Something that can put one 16-bit-UUID service-data advert on the air.
///
/// Implementations: ``HCIAdvertiser`` (raw HCI), ``BlueZDBusAdvertiser`` (bluetoothd over D-Bus) and
/// ``SimulatedAirAdvertiser`` (Unix datagram sockets between processes, for tests and the demo). Pick one with
/// ``BLEBackend/makeAdvertiser(logger:)``.
///
/// Contract for every implementation:
/// - ``startAdvertising(_:)`` returns once the advert is on the air, and it stays there until
///   ``stopAdvertising()``. Calling it again replaces the advert.
/// - If `startAdvertising` fails or its task is cancelled, advertising is off when it returns.
/// - ``stopAdvertising()`` switches advertising off and waits until it is off. It never throws; failures
///   to switch off are logged. The HCI backend also switches advertising off when the process exits.
///
/// Chromium's `SendBLEAdvert` returns a handle whose destruction stops the advert;
/// ``withAdvertising(_:isolation:_:)`` is the scoped equivalent.
public protocol BLEAdvertiser: Sendable {
    /// Starts (or replaces) the advert and returns once the controller is advertising it.
    /// - Throws: ``BluetoothError``, or `CancellationError` if cancelled (advertising is then off).
    func startAdvertising(_ advert: BLEServiceDataAdvert) async throws

    /// Switches advertising off and waits until it is off. Does nothing when not advertising.
    func stopAdvertising() async
}

extension BLEAdvertiser {
    /// Advertises `advert` while `body` runs, and switches advertising off afterwards, whether `body`
    /// returns, throws or is cancelled.
    public func withAdvertising<Result>(
        _ advert: BLEServiceDataAdvert,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async throws -> Result {
        try await startAdvertising(advert)
        do {
            let result = try await body()
            await stopAdvertising()
            return result
        } catch {
            await stopAdvertising()
            throw error
        }
    }
}

/// One advert: Service Data for a 16-bit service UUID (AD type 0x16), sent at a fixed interval.
public struct BLEServiceDataAdvert: Sendable, Hashable {
    /// The 16-bit service UUID, e.g. ``BLEServiceUUID/fido`` (0xFFF9).
    public var uuid16: UInt16
    /// The service data after the UUID: for caBLE, the 20-byte encrypted EID (protocol.md §3.2),
    /// optionally followed by the CTAP 2.3 suffix (§3.4).
    public var serviceData: [UInt8]
    /// Advertising interval. The controller range is 20 ms ... 10.24 s.
    public var interval: Duration
    /// Whether a client may connect to the advertiser: a phone that listens on a CTAP 2.3 L2CAP
    /// PSM (protocol.md §3.4) must advertise connectable, since the client's kernel connects to
    /// the advert's address. A plain caBLE advert is not connectable.
    public var connectable: Bool

    /// The default interval: 100 ms, close to Android's `ADVERTISE_MODE_LOW_LATENCY`.
    public static let defaultInterval: Duration = .milliseconds(100)

    /// An advert of `serviceData` under `uuid16` (FIDO by default), sent every `interval`,
    /// connectable or not.
    public init(
        uuid16: UInt16 = BLEServiceUUID.fido, serviceData: [UInt8], interval: Duration = Self.defaultInterval,
        connectable: Bool = false
    ) {
        self.uuid16 = uuid16
        self.serviceData = serviceData
        self.interval = interval
        self.connectable = connectable
    }
}
