import CDBus
import Testing

@testable import HybridBluetooth
@testable import HybridDBus

/// Messages are built and read back through libdbus itself (no bus needed). The expected
/// signatures are written by hand from the D-Bus specification and BlueZ's API documents.
@Suite struct DBusMarshallingTests {
    static func signature(of message: DBusMessage) -> String {
        dbus_message_get_signature(message.pointer).map { String(cString: $0) } ?? ""
    }

    @Test func registerAdvertisementCallHasTheDocumentedSignature() throws {
        let message = try DBusMessage.methodCall(
            destination: "org.bluez",
            path: "/org/bluez/hci0",
            interface: "org.bluez.LEAdvertisingManager1",
            member: "RegisterAdvertisement",
            arguments: [.objectPath("/org/hybrid/advertisement0"), .stringVariantDictionary([])]
        )
        #expect(Self.signature(of: message) == "oa{sv}")  // advertising-api.txt: RegisterAdvertisement(object, dict)
        #expect(try message.arguments() == [.objectPath("/org/hybrid/advertisement0"), .stringVariantDictionary([])])
    }

    @Test func advertisementPropertiesSurviveLibdbus() throws {
        let properties = BlueZ.advertisementProperties(BLEServiceDataAdvert(serviceData: Fixture.androidEID))
        let message = try DBusMessage.methodCall(
            destination: "org.example",
            path: "/",
            interface: "org.example",
            member: "M",
            arguments: [.stringVariantDictionary(properties)]
        )
        #expect(Self.signature(of: message) == "a{sv}")
        let back = try #require(try message.arguments().first)
        #expect(back == .stringVariantDictionary(properties))
        let serviceData = try #require(back.stringKeyedEntries?["ServiceData"]?.stringKeyedEntries)
        #expect(serviceData["0000fff9-0000-1000-8000-00805f9b34fb"] == .variant(.bytes(Fixture.androidEID)))
    }

    @Test func interfacesAddedShapeRoundTrips() throws {
        // InterfacesAdded(object path, dict<string, dict<string, variant>> interfaces_and_properties)
        let interfaces = BlueZTests.device([
            ("Address", .string("C0:FF:EE:00:00:01")), ("RSSI", .int16(-70)),
            ("UUIDs", .array(elementSignature: "s", [])),
            ("ServiceData", BlueZTests.serviceData),
            (
                "ManufacturerData",
                .dictionary(
                    keySignature: "q",
                    valueSignature: "v",
                    [DBusDictEntry(key: .uint16(0x004C), value: .variant(.bytes([1, 2])))]
                )
            ),
            ("Paired", .boolean(false)), ("TxPower", .int16(4)), ("Class", .uint32(0x5A020C)), ("Empty", .bytes([])),
        ])
        let message = try DBusMessage.methodCall(
            destination: "org.example",
            path: "/",
            interface: "org.example",
            member: "M",
            arguments: [.objectPath("/org/bluez/hci1/dev_C0_FF_EE_00_00_01"), interfaces]
        )
        #expect(Self.signature(of: message) == "oa{sa{sv}}")
        let back = try message.arguments()
        #expect(back == [.objectPath("/org/bluez/hci1/dev_C0_FF_EE_00_00_01"), interfaces])
        let device = try #require(back[1].stringKeyedEntries?["org.bluez.Device1"]?.stringKeyedEntries)
        let adverts = BlueZ.adverts(
            devicePath: "/org/bluez/hci1/dev_C0_FF_EE_00_00_01",
            properties: device,
            uuids: [0xFFF9]
        )
        #expect(adverts.map(\.serviceData) == [Fixture.androidEID])
        #expect(adverts.first?.rssi == -70)
    }

    @Test func structuresAndNumbers() throws {
        let values: [DBusValue] = [
            .structure([.byte(1), .int32(-2), .uint64(3), .double(0.5), .signature("a{sv}"), .int64(-4)]),
            .array(elementSignature: "(ib)", [.structure([.int32(1), .boolean(true)])]),
        ]
        let message = try DBusMessage.methodCall(
            destination: "org.example",
            path: "/",
            interface: "org.example",
            member: "M",
            arguments: values
        )
        #expect(Self.signature(of: message) == "(yitdgx)a(ib)")
        #expect(try message.arguments() == values)
    }
}
