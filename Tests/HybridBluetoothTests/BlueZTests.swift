import Testing

@testable import HybridBluetooth
@testable import HybridDBus

/// Fixtures follow the signal and property layouts in BlueZ's doc/device-api.txt, adapter-api.txt
/// and advertising-api.txt (bluetoothd 5.66).
@Suite struct BlueZTests {
    @Test func uuidStrings() {
        #expect(BlueZ.uuidString(0xFFF9) == "0000fff9-0000-1000-8000-00805f9b34fb")
        #expect(BlueZ.uuidString(0x0001) == "00000001-0000-1000-8000-00805f9b34fb")
        #expect(BlueZ.uuid16(from: "0000FDE2-0000-1000-8000-00805F9B34FB") == 0xFDE2)
        #expect(BlueZ.uuid16(from: "fff9") == 0xFFF9)
        #expect(BlueZ.uuid16(from: "0001fff9-0000-1000-8000-00805f9b34fb") == nil)
        #expect(BlueZ.uuid16(from: "0000fff9-0000-1000-8000-00805f9b34fc") == nil)
    }

    static func device(_ properties: [(String, DBusValue)]) -> DBusValue {
        .dictionary(
            keySignature: "s",
            valueSignature: "a{sv}",
            [DBusDictEntry(key: .string("org.bluez.Device1"), value: .stringVariantDictionary(properties))]
        )
    }

    static let serviceData = DBusValue.dictionary(
        keySignature: "s",
        valueSignature: "v",
        [
            DBusDictEntry(
                key: .string("0000fff9-0000-1000-8000-00805f9b34fb"),
                value: .variant(.bytes(Fixture.androidEID))
            ),
            DBusDictEntry(key: .string("0000180f-0000-1000-8000-00805f9b34fb"), value: .variant(.bytes([0x64]))),
        ]
    )

    @Test func advertsFromDeviceProperties() throws {
        let properties: [String: DBusValue] = [
            "Address": .variant(.string("C0:FF:EE:00:00:01")), "RSSI": .variant(.int16(-61)),
            "ServiceData": .variant(Self.serviceData),
        ]
        let adverts = BlueZ.adverts(
            devicePath: "/org/bluez/hci1/dev_C0_FF_EE_00_00_01",
            properties: properties,
            uuids: BLEServiceUUID.cable
        )
        #expect(
            adverts == [
                BLEAdvertisement(
                    address: try #require(BLEAddress(string: "C0:FF:EE:00:00:01")),
                    uuid16: 0xFFF9,
                    serviceData: Fixture.androidEID,
                    rssi: -61
                )
            ]
        )
    }

    /// Device1.AddressType (BlueZ doc/device-api.txt: "public" or "random") becomes the advert's
    /// address type, which the L2CAP connect needs; anything else leaves it unknown.
    @Test func theAddressTypeComesFromDevice1() {
        for (value, expected) in [("public", BLEAddressType.public), ("random", .random)] as [(String, BLEAddressType)]
        {
            let adverts = BlueZ.adverts(
                devicePath: "/org/bluez/hci1/dev_C0_FF_EE_00_00_01",
                properties: ["AddressType": .variant(.string(value)), "ServiceData": .variant(Self.serviceData)],
                uuids: [0xFFF9])
            #expect(adverts.map(\.addressType) == [expected])
        }
        let unknown = BlueZ.adverts(
            devicePath: "/org/bluez/hci1/dev_C0_FF_EE_00_00_01",
            properties: ["AddressType": .variant(.string("anonymous")), "ServiceData": .variant(Self.serviceData)],
            uuids: [0xFFF9])
        #expect(unknown.map(\.addressType) == [nil])
    }

    /// A device bluetoothd already knows sends its adverts as PropertiesChanged, without
    /// AddressType: the type comes from GetManagedObjects (or an earlier InterfacesAdded).
    @Test func aKnownDevicesAddressTypeIsRemembered() {
        let device: [(String, DBusValue)] = [
            ("AddressType", .string("public")), ("Address", .string("C0:FF:EE:00:00:01")),
        ]
        let objects = DBusValue.dictionary(
            keySignature: "o", valueSignature: "a{sa{sv}}",
            [
                DBusDictEntry(
                    key: .objectPath("/org/bluez/hci1/dev_C0_FF_EE_00_00_01"),
                    value: .dictionary(
                        keySignature: "s", valueSignature: "a{sv}",
                        [DBusDictEntry(key: .string(BlueZ.deviceInterface), value: .stringVariantDictionary(device))])),
                DBusDictEntry(
                    key: .objectPath("/org/bluez/hci0/dev_C0_FF_EE_00_00_02"),
                    value: .dictionary(
                        keySignature: "s", valueSignature: "a{sv}",
                        [DBusDictEntry(key: .string(BlueZ.deviceInterface), value: .stringVariantDictionary(device))])),
            ])
        let known = BlueZ.deviceAddressTypes(inManagedObjects: objects, under: "/org/bluez/hci1/")
        #expect(known == ["/org/bluez/hci1/dev_C0_FF_EE_00_00_01": .public])
        let adverts = BlueZ.adverts(
            devicePath: "/org/bluez/hci1/dev_C0_FF_EE_00_00_01",
            properties: ["ServiceData": .variant(Self.serviceData)],
            uuids: [0xFFF9], knownAddressType: known["/org/bluez/hci1/dev_C0_FF_EE_00_00_01"])
        #expect(adverts.map(\.addressType) == [.public])
    }

    @Test func propertiesChangedWithoutAddressUsesThePath() throws {
        let adverts = BlueZ.adverts(
            devicePath: "/org/bluez/hci1/dev_12_34_56_78_9A_BC",
            properties: ["ServiceData": .variant(Self.serviceData)],
            uuids: [0xFFF9]
        )
        #expect(adverts.map(\.address.description) == ["12:34:56:78:9A:BC"])
        #expect(adverts.first?.rssi == nil)
    }

    @Test func adapterChoice() throws {
        let objects = DBusValue.dictionary(
            keySignature: "o",
            valueSignature: "a{sa{sv}}",
            [
                DBusDictEntry(
                    key: .objectPath("/org/bluez/hci1"),
                    value: .dictionary(
                        keySignature: "s",
                        valueSignature: "a{sv}",
                        [
                            DBusDictEntry(
                                key: .string("org.bluez.Adapter1"),
                                value: .stringVariantDictionary([("Powered", .boolean(true))])
                            ),
                            DBusDictEntry(
                                key: .string("org.bluez.LEAdvertisingManager1"),
                                value: .stringVariantDictionary([])
                            ),
                        ]
                    )
                ),
                DBusDictEntry(
                    key: .objectPath("/org/bluez/hci0"),
                    value: .dictionary(
                        keySignature: "s",
                        valueSignature: "a{sv}",
                        [
                            DBusDictEntry(
                                key: .string("org.bluez.Adapter1"),
                                value: .stringVariantDictionary([("Powered", .boolean(false))])
                            )
                        ]
                    )
                ),
                DBusDictEntry(key: .objectPath("/org/bluez"), value: .stringVariantDictionary([])),
            ]
        )
        let adapters = BlueZ.adapters(inManagedObjects: objects)
        #expect(
            adapters == [
                BlueZ.Adapter(path: "/org/bluez/hci0", name: "hci0", powered: false, canAdvertise: false),
                BlueZ.Adapter(path: "/org/bluez/hci1", name: "hci1", powered: true, canAdvertise: true),
            ]
        )
        #expect(try BlueZ.choose(nil, from: adapters).name == "hci1")
        #expect(throws: BluetoothError.adapterDown("hci0")) { try BlueZ.choose("hci0", from: adapters) }
        #expect(throws: BluetoothError.noAdapter("hci7")) { try BlueZ.choose("hci7", from: adapters) }
        #expect(throws: BluetoothError.noAdapter(nil)) { try BlueZ.choose(nil, from: []) }
        #expect(throws: BluetoothError.adapterDown("hci0")) { try BlueZ.choose(nil, from: [adapters[0]]) }
    }

    @Test func advertisementPropertiesKeepTheUUIDListWhileItFits() {
        let short = BlueZ.advertisementProperties(BLEServiceDataAdvert(serviceData: Fixture.androidEID))
        #expect(short.map(\.0) == ["Type", "ServiceUUIDs", "ServiceData", "MinInterval", "MaxInterval"])
        #expect(short.first?.1 == .string("broadcast"))
        #expect(
            short[2].1
                == .stringVariantDictionary([("0000fff9-0000-1000-8000-00805f9b34fb", .bytes(Fixture.androidEID))])
        )
        #expect(short[3].1 == .uint32(100))
        let long = BlueZ.advertisementProperties(
            BLEServiceDataAdvert(serviceData: Fixture.androidEID + Fixture.androidSuffix)
        )
        #expect(!long.map(\.0).contains("ServiceUUIDs"))
        // A connectable advert (the phone's, with an L2CAP PSM) is a "peripheral" one
        // (BlueZ doc/advertising-api.txt: "broadcast" or "peripheral").
        let connectable = BlueZ.advertisementProperties(
            BLEServiceDataAdvert(serviceData: Fixture.androidEID + Fixture.androidSuffix, connectable: true))
        #expect(connectable.first?.1 == .string("peripheral"))
    }

    @Test func dbusErrorsMapToActionableCases() {
        #expect(
            BluetoothError.fromDBusError(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "", adapter: nil)
                .description
                .contains("bluetoothd is not running")
        )
        #expect(
            BluetoothError.fromDBusError(name: "org.freedesktop.DBus.Error.AccessDenied", message: "", adapter: "hci0")
                == .permissionDenied
        )
        #expect(
            BluetoothError.fromDBusError(name: "org.bluez.Error.NotReady", message: "", adapter: "hci0")
                == .adapterDown("hci0")
        )
        #expect(
            BluetoothError.fromDBusError(name: "org.bluez.Error.InProgress", message: "", adapter: "hci0")
                == .adapterBusy("hci0")
        )
        #expect(
            BluetoothError.fromDBusError(name: "org.bluez.Error.Failed", message: "boom", adapter: "hci0")
                == .bluezFailed(name: "org.bluez.Error.Failed", message: "boom")
        )
    }
}
