import Logging

/// ``BLEAdvertiser`` over a raw HCI socket (libbluetooth through CBlueZ).
///
/// Sends ADV_NONCONN_IND adverts, or connectable extended adverts when
/// ``BLEServiceDataAdvert/connectable`` (legacy commands first, extended when needed, see
/// ``HCICommandFamily``) with the AD layout of `AdvertisingDataLayout`, from a fresh non-resolvable
/// private address for every ``startAdvertising(_:)`` (Core spec Vol 6 Part B §1.3.2.2; drawn from the
/// system CSPRNG), never from the controller's public address: like Android's caBLE adverts, they
/// cannot be linked to this machine or to each other. All HCI I/O happens on a
/// dedicated thread per advert. Advertising is switched off on ``stopAdvertising()``, when starting
/// fails, when the starting task is cancelled, and by the CBlueZ exit guard when the process exits
/// or dies of a signal (except SIGKILL).
///
/// Needs CAP_NET_RAW and CAP_NET_ADMIN (or root). It drives the controller behind bluetoothd's back:
/// on a desktop prefer ``BlueZDBusAdvertiser``.
public struct HCIAdvertiser: BLEAdvertiser {
    private let runner: AdvertisingRunner

    /// - Parameters:
    ///   - adapter: `hciN`, or `nil` for the first adapter that is up.
    ///   - commandFamily: legacy or extended commands; `.automatic` picks per controller.
    ///   - logger: where controller and advertising problems are logged.
    public init(adapter: String?, commandFamily: HCICommandFamily = .automatic, logger: Logger) {
        self.init(adapter: adapter, commandFamily: commandFamily, logger: logger) {
            var generator = SystemRandomNumberGenerator()
            return generator.next()
        }
    }

    /// - Parameter randomBits: uniformly random 64-bit draws for the advertising addresses (see
    ///   ``BLEAddress/nonResolvablePrivate(excluding:draw:)``); tests pin them.
    init(
        adapter: String?,
        commandFamily: HCICommandFamily = .automatic,
        logger: Logger,
        randomBits: @escaping @Sendable () -> UInt64
    ) {
        runner = AdvertisingRunner(threadName: "hci-advertiser") { advert, activity in
            Self.advertise(
                advert,
                adapter: adapter,
                family: commandFamily,
                randomBits: randomBits,
                activity: activity,
                logger: logger
            )
        }
    }

    /// Starts (or replaces) the advert.
    public func startAdvertising(_ advert: BLEServiceDataAdvert) async throws {
        try await runner.start(advert)
    }

    /// Stops advertising; nothing happens if it was not advertising.
    public func stopAdvertising() async {
        await runner.stop()
    }

    private static func advertise(
        _ advert: BLEServiceDataAdvert,
        adapter name: String?,
        family: HCICommandFamily,
        randomBits: () -> UInt64,
        activity: BlockingActivity,
        logger: Logger
    ) {
        let connection: HCIConnection
        let active: HCIConnection.ActiveAdvertising
        let ownAddress: BLEAddress
        do {
            connection = try HCIConnection(adapter: try HCIAdapter.resolve(name), logger: logger)
            ownAddress = BLEAddress.nonResolvablePrivate(
                excluding: HCIAdapter.address(of: connection.adapter.name),
                draw: randomBits
            )
            active = try connection.startAdvertising(advert, family: family, ownAddress: ownAddress)
        } catch {
            activity.reportStarted(.failure(error))
            return
        }
        var metadata: Logger.Metadata = ["ble.adapter": "\(connection.adapter.name)", "ble.uuid": "\(advert.uuid16)"]
        metadata["ble.commands"] = "\(active)"
        metadata["ble.address"] = "\(ownAddress)"
        logger.debug("advertising", metadata: metadata)
        activity.reportStarted(.success(()))
        do {
            try connection.idle(until: activity.wake)
        } catch {
            logger.info(
                "adapter failed while advertising",
                metadata: ["ble.adapter": "\(connection.adapter.name)", "error": "\(error)"]
            )
        }
        do {
            try connection.stopAdvertising(active)
            logger.debug("advertising stopped", metadata: ["ble.adapter": "\(connection.adapter.name)"])
        } catch {
            logger.info(
                "could not switch advertising off",
                metadata: ["ble.adapter": "\(connection.adapter.name)", "error": "\(error)"]
            )
        }
    }
}
