import HybridDBus
import Logging

/// ``BLEScanner`` through bluetoothd's D-Bus API: `Adapter1.SetDiscoveryFilter` with
/// `Transport=le`, `DuplicateData=true`, then `StartDiscovery`, reading `Device1.ServiceData` from
/// `InterfacesAdded` and `PropertiesChanged` signals. This is how Chromium, libwebauthn and Telegram
/// scan on Linux. RSSI is reported when bluetoothd sends it in the same signal. All D-Bus I/O runs on
/// a dedicated thread per scan; the discovery session ends with our bus connection.
public struct BlueZDBusScanner: BLEScanner {
    private let adapter: String?
    private let logger: Logger
    private let busAddress: String?
    private let runner = ScanRunner(threadName: "bluez-scanner")

    /// - Parameters:
    ///   - adapter: `hciN`, or `nil` for the first powered adapter bluetoothd offers.
    ///   - logger: where D-Bus and scanning problems are logged.
    public init(adapter: String?, logger: Logger) {
        self.init(adapter: adapter, logger: logger, busAddress: nil)
    }

    /// - Parameter busAddress: a D-Bus address to use instead of the system bus (tests).
    init(adapter: String?, logger: Logger, busAddress: String?) {
        self.adapter = adapter
        self.logger = logger
        self.busAddress = busAddress
    }

    /// Ends every scan of this scanner and returns once each has finished (see
    /// ``BLEScanner/stopScanning()``).
    public func stopScanning() async {
        await runner.stopAll()
    }

    /// The adverts under `uuids` that bluetoothd reports, until the stream is dropped.
    public func scan(for uuids: Set<UInt16>) async throws -> AsyncThrowingStream<BLEAdvertisement, any Error> {
        let (adapter, logger, busAddress) = (self.adapter, self.logger, self.busAddress)
        return try await runner.scan { activity, continuation in
            Self.scan(
                uuids: uuids, adapter: adapter, busAddress: busAddress, activity: activity,
                continuation: continuation, logger: logger)
        }
    }

    private static func scan(
        uuids: Set<UInt16>,
        adapter name: String?,
        busAddress: String?,
        activity: BlockingActivity,
        continuation: ScanRunner.Continuation,
        logger: Logger
    ) {
        let connection: DBusConnection
        let adapter: BlueZ.Adapter
        do {
            connection = try busAddress.map(DBusConnection.init(address:)) ?? DBusConnection()
            // Only bluetoothd's own messages count: anyone can address a signal to us directly.
            try connection.followOwner(of: BlueZ.service)
            let objects = try connection.bluezManagedObjects(adapter: name)
            adapter = try BlueZ.choose(name, from: BlueZ.adapters(inManagedObjects: objects))
            for rule in BlueZ.scanMatchRules(adapterPath: adapter.path) { try connection.addMatch(rule) }
            let devicePrefix = adapter.path + "/"
            // Only this thread touches it (onIncoming runs inside serve).
            let addressTypes = AddressTypeCache(
                BlueZ.deviceAddressTypes(inManagedObjects: objects, under: devicePrefix))
            connection.onIncoming = { message in
                for advert in Self.adverts(
                    in: message, devicePrefix: devicePrefix, uuids: uuids, addressTypes: &addressTypes.byPath)
                {
                    continuation.yield(advert)
                }
            }
            try connection.callAdapter(
                adapter,
                interface: BlueZ.adapterInterface,
                member: "SetDiscoveryFilter",
                [.stringVariantDictionary([("Transport", .string("le")), ("DuplicateData", .boolean(true))])]
            )
            try connection.callAdapter(adapter, interface: BlueZ.adapterInterface, member: "StartDiscovery")
        } catch {
            activity.reportStarted(.failure(BluetoothError.mapping(error, adapter: nil)))
            return
        }
        logger.debug("scanning through bluetoothd", metadata: ["ble.adapter": "\(adapter.name)"])
        activity.reportStarted(.success(()))
        var failure: (any Error)?
        do {
            try connection.serve(untilReadable: activity.wake.pollDescriptor)
        } catch {
            failure = BluetoothError.mapping(error, adapter: nil)
        }
        connection.onIncoming = { _ in }
        _ = try? connection.callAdapter(
            adapter,
            interface: BlueZ.adapterInterface,
            member: "StopDiscovery",
            timeoutMilliseconds: 3000
        )
        continuation.finish(throwing: failure)
    }

    /// Adverts carried by an `InterfacesAdded` or `PropertiesChanged` signal for a device under the
    /// adapter (`devicePrefix` is `/org/bluez/hciN/`). `addressTypes` remembers each device's
    /// AddressType, which only `InterfacesAdded` (and `GetManagedObjects`) carry.
    static func adverts(
        in message: DBusMessage, devicePrefix: String, uuids: Set<UInt16>,
        addressTypes: inout [String: BLEAddressType]
    ) -> [BLEAdvertisement] {
        guard message.kind == .signal, let arguments = try? message.arguments() else { return [] }
        switch (message.interface, message.member) {
        case (BlueZ.objectManagerInterface, "InterfacesAdded"):
            guard arguments.count == 2, let path = arguments[0].string, path.hasPrefix(devicePrefix),
                let properties = arguments[1].stringKeyedEntries?[BlueZ.deviceInterface]?.stringKeyedEntries
            else { return [] }
            if let type = BlueZ.addressType(in: properties) { addressTypes[path] = type }
            return BlueZ.adverts(devicePath: path, properties: properties, uuids: uuids)
        case (BlueZ.propertiesInterface, "PropertiesChanged"):
            guard arguments.count >= 2, arguments[0].string == BlueZ.deviceInterface, let path = message.path,
                path.hasPrefix(devicePrefix), let changed = arguments[1].stringKeyedEntries
            else { return [] }
            return BlueZ.adverts(
                devicePath: path, properties: changed, uuids: uuids, knownAddressType: addressTypes[path])
        default:
            return []
        }
    }
}

/// The scan thread's memory of each device's address type, by object path.
private final class AddressTypeCache: @unchecked Sendable {
    var byPath: [String: BLEAddressType]
    init(_ byPath: [String: BLEAddressType]) { self.byPath = byPath }
}
