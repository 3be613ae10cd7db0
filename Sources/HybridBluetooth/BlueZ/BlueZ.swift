import HybridDBus

/// Names and pure helpers for bluetoothd's D-Bus API (BlueZ `doc/adapter-api.txt`,
/// `device-api.txt`, `advertising-api.txt`). No I/O here, so it is tested on the host.
enum BlueZ {
    static let service = "org.bluez"
    static let adapterInterface = "org.bluez.Adapter1"
    static let deviceInterface = "org.bluez.Device1"
    static let advertisingManagerInterface = "org.bluez.LEAdvertisingManager1"
    static let advertisementInterface = "org.bluez.LEAdvertisement1"
    static let objectManagerInterface = "org.freedesktop.DBus.ObjectManager"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    static let introspectableInterface = "org.freedesktop.DBus.Introspectable"

    /// Bluetooth Base UUID suffix (Core spec Vol 3 Part B §2.5.1).
    private static let baseSuffix = "-0000-1000-8000-00805f9b34fb"

    /// `0000fff9-0000-1000-8000-00805f9b34fb`.
    static func uuidString(_ uuid16: UInt16) -> String {
        let hex = String(uuid16, radix: 16)
        return "0000" + String(repeating: "0", count: 4 - hex.count) + hex + baseSuffix
    }

    /// The 16-bit UUID in a 128-bit Base-UUID string (any case), or in a bare 4-digit form.
    static func uuid16(from string: String) -> UInt16? {
        let text = string.lowercased()
        if text.count == 4 { return UInt16(text, radix: 16) }
        guard text.count == 36, text.hasPrefix("0000"), text.hasSuffix(baseSuffix) else { return nil }
        return UInt16(text.dropFirst(4).prefix(4), radix: 16)
    }

    /// One adapter as listed by `GetManagedObjects`.
    struct Adapter: Equatable {
        /// `/org/bluez/hci0`.
        var path: String
        /// `hci0`.
        var name: String
        var powered: Bool
        /// Whether bluetoothd offers LEAdvertisingManager1 on it.
        var canAdvertise: Bool
    }

    /// The adapters in a `GetManagedObjects` reply (`a{oa{sa{sv}}}`), sorted by path.
    static func adapters(inManagedObjects reply: DBusValue) -> [Adapter] {
        guard let objects = reply.stringKeyedEntries else { return [] }
        return objects.compactMap { path, value -> Adapter? in
            guard let interfaces = value.stringKeyedEntries,
                let properties = interfaces[adapterInterface]?.stringKeyedEntries
            else { return nil }
            let name = path.split(separator: "/").last.map(String.init) ?? path
            return Adapter(
                path: path,
                name: name,
                powered: properties["Powered"]?.bool ?? false,
                canAdvertise: interfaces[advertisingManagerInterface] != nil
            )
        }.sorted { $0.path < $1.path }
    }

    /// Picks `requested` (`hciN`), or the first powered adapter.
    /// - Throws: ``BluetoothError/noAdapter(_:)``, ``BluetoothError/adapterDown(_:)``.
    static func choose(_ requested: String?, from adapters: [Adapter]) throws -> Adapter {
        if let requested {
            guard let adapter = adapters.first(where: { $0.name == requested }) else {
                throw BluetoothError.noAdapter(requested)
            }
            guard adapter.powered else { throw BluetoothError.adapterDown(requested) }
            return adapter
        }
        if let powered = adapters.first(where: \.powered) { return powered }
        guard let first = adapters.first else { throw BluetoothError.noAdapter(nil) }
        throw BluetoothError.adapterDown(first.name)
    }

    /// Device1.AddressType of every device bluetoothd already knows under `devicePrefix`, by object
    /// path: a known device's adverts arrive as `PropertiesChanged` signals, which do not repeat it.
    static func deviceAddressTypes(inManagedObjects reply: DBusValue, under devicePrefix: String) -> [String:
        BLEAddressType]
    {
        var types: [String: BLEAddressType] = [:]
        for (path, value) in reply.stringKeyedEntries ?? [:] where path.hasPrefix(devicePrefix) {
            guard let properties = value.stringKeyedEntries?[deviceInterface]?.stringKeyedEntries,
                let type = addressType(in: properties)
            else { continue }
            types[path] = type
        }
        return types
    }

    /// Device1.AddressType ("public" or "random"), if the property set has it.
    static func addressType(in properties: [String: DBusValue]) -> BLEAddressType? {
        switch properties["AddressType"]?.string {
        case "public": .public
        case "random": .random
        default: nil
        }
    }

    /// The adverts in a Device1 property set (from InterfacesAdded or PropertiesChanged): one per
    /// ServiceData entry whose UUID is in `uuids`.
    /// `knownAddressType` stands in when the set has no AddressType (a `PropertiesChanged`).
    static func adverts(
        devicePath: String, properties: [String: DBusValue], uuids: Set<UInt16>, knownAddressType: BLEAddressType? = nil
    ) -> [BLEAdvertisement] {
        guard let serviceData = properties["ServiceData"]?.stringKeyedEntries else { return [] }
        let address =
            properties["Address"]?.string.flatMap(BLEAddress.init(string:))
            ?? devicePath.split(separator: "/").last.flatMap { element in
                element.hasPrefix("dev_") ? BLEAddress(string: String(element.dropFirst(4))) : nil
            }
        guard let address else { return [] }
        var rssi: Int8?
        if case .int16(let value)? = properties["RSSI"]?.unwrapped { rssi = Int8(clamping: value) }
        let addressType = addressType(in: properties) ?? knownAddressType
        return serviceData.sorted { $0.key < $1.key }.compactMap { key, value in
            guard let uuid16 = uuid16(from: key), uuids.contains(uuid16), case .bytes(let data) = value.unwrapped else {
                return nil
            }
            return BLEAdvertisement(
                address: address, addressType: addressType, uuid16: uuid16, serviceData: data, rssi: rssi)
        }
    }

    /// The LEAdvertisement1 properties for `advert`: a non-connectable `broadcast` advert (bluetoothd
    /// adds no Flags to those), or a connectable `peripheral` one (with Flags), with the service data, plus the 16-bit UUID list when both fit a
    /// 31-byte legacy advert (the same priority as ``AdvertisingDataLayout``), plus the interval.
    static func advertisementProperties(_ advert: BLEServiceDataAdvert) -> [(String, DBusValue)] {
        let uuid = uuidString(advert.uuid16)
        // "peripheral": connectable, so that a client's kernel can open the CTAP 2.3 L2CAP channel.
        var properties: [(String, DBusValue)] = [("Type", .string(advert.connectable ? "peripheral" : "broadcast"))]
        let serviceDataLength = 4 + advert.serviceData.count
        if serviceDataLength + 4 <= AdvertisingDataLayout.legacyMaximum {
            properties.append(("ServiceUUIDs", .array(elementSignature: "s", [.string(uuid)])))
        }
        properties.append(
            ("ServiceData", .stringVariantDictionary([(uuid, .bytes(advert.serviceData))]))
        )
        let milliseconds = UInt32(advert.intervalMilliseconds)
        properties.append(("MinInterval", .uint32(milliseconds)))
        properties.append(("MaxInterval", .uint32(milliseconds)))
        return properties
    }

    /// Match rules for the scanner's signals under `adapterPath`.
    static func scanMatchRules(adapterPath: String) -> [String] {
        [
            "type='signal',sender='\(service)',interface='\(objectManagerInterface)',member='InterfacesAdded'",
            "type='signal',sender='\(service)',interface='\(propertiesInterface)',member='PropertiesChanged',"
                + "arg0='\(deviceInterface)',path_namespace='\(adapterPath)'",
        ]
    }
}
