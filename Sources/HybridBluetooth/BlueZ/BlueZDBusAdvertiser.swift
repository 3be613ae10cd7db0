import HybridDBus
import Logging

/// ``BLEAdvertiser`` through bluetoothd's D-Bus API: exports an `org.bluez.LEAdvertisement1`
/// object (Type `broadcast`, so non-connectable; ServiceData; Release) and registers it with
/// `LEAdvertisingManager1.RegisterAdvertisement` on the adapter.
///
/// No root needed, and it coexists with other bluetoothd users: the desktop choice. bluetoothd
/// owns the controller and picks legacy or extended commands itself. The advert lives only as long
/// as our bus connection, so it also ends when the process exits. All D-Bus I/O runs on a
/// dedicated thread per advert.
public struct BlueZDBusAdvertiser: BLEAdvertiser {
    private let runner: AdvertisingRunner

    /// Object path of our advertisement (one per bus connection, and each advert has its own).
    static let objectPath = "/org/hybrid/advertisement0"

    /// - Parameters:
    ///   - adapter: `hciN`, or `nil` for the first powered adapter bluetoothd offers.
    ///   - logger: where D-Bus and advertising problems are logged.
    public init(adapter: String?, logger: Logger) {
        runner = AdvertisingRunner(threadName: "bluez-advertiser") { advert, activity in
            Self.advertise(advert, adapter: adapter, activity: activity, logger: logger)
        }
    }

    /// Registers (or replaces) the advert with bluetoothd.
    public func startAdvertising(_ advert: BLEServiceDataAdvert) async throws {
        try await runner.start(advert)
    }

    /// Unregisters the advert; nothing happens if none is registered.
    public func stopAdvertising() async {
        await runner.stop()
    }

    private static func advertise(
        _ advert: BLEServiceDataAdvert,
        adapter name: String?,
        activity: BlockingActivity,
        logger: Logger
    ) {
        let object = BlueZAdvertisementObject(path: objectPath, properties: BlueZ.advertisementProperties(advert))
        var released = false
        let connection: DBusConnection
        let adapter: BlueZ.Adapter
        do {
            connection = try DBusConnection()
            // Only bluetoothd may read our advert or Release it.
            try connection.followOwner(of: BlueZ.service)
            connection.onIncoming = { [unowned connection] message in
                if let reply = object.reply(to: message, released: &released) { connection.send(reply) }
            }
            adapter = try connection.bluezAdapter(name)
            guard adapter.canAdvertise else {
                throw BluetoothError.unavailable(reason: "bluetoothd offers no LE advertising on \(adapter.name)")
            }
            try connection.callAdapter(
                adapter,
                interface: BlueZ.advertisingManagerInterface,
                member: "RegisterAdvertisement",
                [.objectPath(objectPath), .stringVariantDictionary([])]
            )
        } catch {
            activity.reportStarted(.failure(BluetoothError.mapping(error, adapter: nil)))
            return
        }
        logger.debug(
            "advertising through bluetoothd",
            metadata: ["ble.adapter": "\(adapter.name)", "ble.uuid": "\(advert.uuid16)"]
        )
        activity.reportStarted(.success(()))
        do {
            try connection.serve(untilReadable: activity.wake.pollDescriptor)
        } catch {
            logger.info("bluetoothd connection failed while advertising", metadata: ["error": "\(error)"])
        }
        if released {
            logger.info("bluetoothd released the advertisement", metadata: ["ble.adapter": "\(adapter.name)"])
            return
        }
        do {
            try connection.callAdapter(
                adapter,
                interface: BlueZ.advertisingManagerInterface,
                member: "UnregisterAdvertisement",
                [.objectPath(objectPath)],
                timeoutMilliseconds: 3000
            )
            logger.debug("advertising stopped", metadata: ["ble.adapter": "\(adapter.name)"])
        } catch {
            // Closing the connection (when `connection` goes away) makes bluetoothd drop it anyway.
            logger.debug("UnregisterAdvertisement failed", metadata: ["error": "\(error)"])
        }
    }
}
