import Logging

/// ``BLEAdvertiser`` on the ``SimulatedAir`` (a simulation: Unix datagram sockets, no radio).
///
/// While advertising, it sends the advert to every registered scanner once per advertising interval.
/// Each advertiser has a random (made-up) address.
public struct SimulatedAirAdvertiser: BLEAdvertiser {
    private let runner: AdvertisingRunner

    /// An advertiser into `air`.
    public init(air: SimulatedAir, logger: Logger) {
        let registry = SimulatedAirRegistry(directory: air.directory)
        let address = BLEAddress(littleEndian: (0..<6).map { _ in UInt8.random(in: 0...255) })
        runner = AdvertisingRunner(threadName: "simulated-air-advertiser") { advert, activity in
            Self.advertise(advert, from: address, registry: registry, activity: activity, logger: logger)
        }
    }

    /// Starts (or replaces) the advert in the air.
    public func startAdvertising(_ advert: BLEServiceDataAdvert) async throws {
        try await runner.start(advert)
    }

    /// Takes the advert out of the air.
    public func stopAdvertising() async {
        await runner.stop()
    }

    private static func advertise(
        _ advert: BLEServiceDataAdvert,
        from address: BLEAddress,
        registry: SimulatedAirRegistry,
        activity: BlockingActivity,
        logger: Logger
    ) {
        let socket: SimulatedAirSocket
        do {
            try registry.checkDirectory()
            socket = try SimulatedAirSocket()
        } catch {
            activity.reportStarted(.failure(error))
            return
        }
        let datagram = SimulatedAirDatagram.encode(
            address: address,
            uuid16: advert.uuid16,
            serviceData: advert.serviceData
        )
        var reported = false
        logger.debug(
            "simulated air: advertising",
            metadata: ["ble.uuid": "\(advert.uuid16)", "ble.air": "\(registry.directory)"]
        )
        repeat {
            for path in registry.scannerPaths() {
                socket.send(datagram, to: path)
            }
            if !reported {
                activity.reportStarted(.success(()))
                reported = true
            }
        } while !activity.wake.wait(milliseconds: Int32(advert.intervalMilliseconds))
        logger.debug("simulated air: advertising stopped")
    }
}
