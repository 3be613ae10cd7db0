import Testing

@testable import HybridBluetooth
@testable import HybridDBus

/// bluetoothd's adapter signals in the shapes its D-Bus API documents them (BlueZ
/// `doc/org.bluez.Adapter.rst`: `Powered` of `org.bluez.Adapter1`; the D-Bus specification's
/// `InterfacesAdded (o, a{sa{sv}})`, `InterfacesRemoved (o, as)` and
/// `PropertiesChanged (s, a{sv}, as)`), marshalled through libdbus, and what the adapter watch's
/// ``AdapterPresence`` makes of them.
@Suite struct BlueZAdapterSignalTests {
    private static let adapter = "/org/bluez/hci1"

    /// `values` as a message body read back by libdbus (the types a received signal has).
    private func body(_ values: [DBusValue]) throws -> [DBusValue] {
        let message = try DBusMessage.methodCall(
            destination: "org.example", path: "/", interface: "org.example", member: "M", arguments: values)
        return try message.arguments()
    }

    private func propertiesChanged(_ interface: String, _ changed: [(String, DBusValue)]) throws -> [DBusValue] {
        try body([.string(interface), .stringVariantDictionary(changed), .array(elementSignature: "s", [])])
    }

    private func interfacesAdded(_ path: String, powered: Bool?) throws -> [DBusValue] {
        var adapter: [(String, DBusValue)] = [
            ("Address", .string("00:AA:01:01:00:01")), ("Discoverable", .boolean(false)),
        ]
        if let powered { adapter.append(("Powered", .boolean(powered))) }
        return try body([
            .objectPath(path),
            .dictionary(
                keySignature: "s", valueSignature: "a{sv}",
                [
                    DBusDictEntry(key: .string("org.bluez.Adapter1"), value: .stringVariantDictionary(adapter)),
                    DBusDictEntry(key: .string("org.freedesktop.DBus.Properties"), value: .stringVariantDictionary([])),
                ]),
        ])
    }

    private func observe(_ interface: String, _ member: String, path: String, _ arguments: [DBusValue])
        -> AdapterPresence.Observation?
    {
        BlueZAdapterSignal.observation(interface: interface, member: member, path: path, arguments: arguments)
    }

    @Test func poweredChangesOfAnAdapter() throws {
        let off = try propertiesChanged("org.bluez.Adapter1", [("Powered", .boolean(false))])
        #expect(
            observe("org.freedesktop.DBus.Properties", "PropertiesChanged", path: Self.adapter, off)
                == .poweredChanged(path: Self.adapter, powered: false))
        // Another property of the adapter, or Powered of another interface (a device's): nothing.
        let discovering = try propertiesChanged("org.bluez.Adapter1", [("Discovering", .boolean(true))])
        #expect(observe("org.freedesktop.DBus.Properties", "PropertiesChanged", path: Self.adapter, discovering) == nil)
        let device = try propertiesChanged("org.bluez.Device1", [("Powered", .boolean(false))])
        #expect(observe("org.freedesktop.DBus.Properties", "PropertiesChanged", path: Self.adapter, device) == nil)
    }

    @Test func adaptersAddedAndRemoved() throws {
        #expect(
            observe(
                "org.freedesktop.DBus.ObjectManager", "InterfacesAdded", path: "/",
                try interfacesAdded(Self.adapter, powered: true))
                == .interfacesAdded(
                    path: Self.adapter, interfaces: ["org.bluez.Adapter1", "org.freedesktop.DBus.Properties"],
                    powered: true))
        #expect(
            observe(
                "org.freedesktop.DBus.ObjectManager", "InterfacesAdded", path: "/",
                try interfacesAdded(Self.adapter, powered: nil))
                == .interfacesAdded(
                    path: Self.adapter, interfaces: ["org.bluez.Adapter1", "org.freedesktop.DBus.Properties"],
                    powered: nil))
        let removed = try body([
            .objectPath(Self.adapter), .array(elementSignature: "s", [.string("org.bluez.Adapter1")]),
        ])
        #expect(
            observe("org.freedesktop.DBus.ObjectManager", "InterfacesRemoved", path: "/", removed)
                == .interfacesRemoved(path: Self.adapter, interfaces: ["org.bluez.Adapter1"]))
    }

    @Test func malformedOrOtherSignalsSayNothing() throws {
        #expect(
            observe("org.freedesktop.DBus.ObjectManager", "InterfacesAdded", path: "/", try body([.string("x")])) == nil
        )
        #expect(observe("org.freedesktop.DBus.ObjectManager", "InterfacesRemoved", path: "/", []) == nil)
        #expect(observe("org.freedesktop.DBus.Properties", "PropertiesChanged", path: Self.adapter, []) == nil)
        #expect(observe("org.bluez.Adapter1", "Whatever", path: Self.adapter, []) == nil)
    }

    /// bluetoothctl's power off and on, the adapter's removal and its return, as bluetoothd signals them.
    @Test func theWatchedAdapterGoesAndComesBack() throws {
        var presence = AdapterPresence(adapter: "hci1")
        func change(_ interface: String, _ member: String, path: String, _ arguments: [DBusValue]) throws
            -> AdapterPresence.Change?
        {
            presence.observe(try #require(observe(interface, member, path: path, arguments)))
        }
        let properties = "org.freedesktop.DBus.Properties"
        let manager = "org.freedesktop.DBus.ObjectManager"
        #expect(
            try change(
                properties, "PropertiesChanged", path: Self.adapter,
                propertiesChanged("org.bluez.Adapter1", [("Powered", .boolean(false))]))
                == .vanished(.adapterDown("hci1")))
        #expect(
            try change(
                properties, "PropertiesChanged", path: Self.adapter,
                propertiesChanged("org.bluez.Adapter1", [("Powered", .boolean(true))]))
                == .returned)
        let removed = try body([
            .objectPath(Self.adapter), .array(elementSignature: "s", [.string("org.bluez.Adapter1")]),
        ])
        #expect(try change(manager, "InterfacesRemoved", path: "/", removed) == .vanished(.noAdapter("hci1")))
        #expect(
            try change(manager, "InterfacesAdded", path: "/", interfacesAdded(Self.adapter, powered: true)) == .returned
        )
        // hci0's power says nothing about hci1.
        #expect(
            try change(
                properties, "PropertiesChanged", path: "/org/bluez/hci0",
                propertiesChanged("org.bluez.Adapter1", [("Powered", .boolean(false))]))
                == nil)
    }
}
