import Foundation
import TestChildProcess
import Testing

@testable import HybridBluetooth

/// The D-Bus scanner believes bluetoothd only. A private `dbus-daemon` runs Debian's own system bus
/// policy (`/usr/share/dbus-1/system.conf`, adapted only to run unprivileged on a socket in a
/// temporary directory: see ``PrivateSystemBus``); python-dbusmock's `bluez5` template is the
/// real owner of `org.bluez` (an independent bluetoothd); a second python-dbus connection is the
/// impostor, which the stock policy lets send signals to anyone.
@Suite(.serialized, .timeLimit(.minutes(5))) struct BlueZImpostorTests {
    static let uuid = "0000fff9-0000-1000-8000-00805f9b34fb"
    static let impostorData: [UInt8] = Array(repeating: 0x66, count: 20)
    static let impostorAddedData: [UInt8] = Array(repeating: 0x77, count: 20)
    static let ownerData: [UInt8] = Array(repeating: 0x0B, count: 20)

    /// The impostor: finds the connections of process `argv[2]` (the scanner's), sends each a
    /// `PropertiesChanged` and an `InterfacesAdded` carrying a caBLE advert, then makes one round
    /// trip to the bus, which routes a connection's messages in order: once GetId is answered, the
    /// signals sit in the scanner's queue. Prints how many connections it addressed.
    static let impostor = """
        import sys, dbus, dbus.lowlevel
        bus = dbus.bus.BusConnection(sys.argv[1])
        daemon = bus.get_object('org.freedesktop.DBus', '/org/freedesktop/DBus')
        me = bus.get_unique_name()
        names = [n for n in daemon.ListNames(dbus_interface='org.freedesktop.DBus') if n.startswith(':') and n != me]
        targets = [n for n in names if daemon.GetConnectionUnixProcessID(n, dbus_interface='org.freedesktop.DBus') == int(sys.argv[2])]
        def service_data(hex):
            return dbus.Dictionary({'\(uuid)': dbus.Array(bytes.fromhex(hex), signature='y')}, signature='sv')
        for target in targets:
            changed = dbus.lowlevel.SignalMessage('/org/bluez/hci0/dev_66_66_66_66_66_66', 'org.freedesktop.DBus.Properties', 'PropertiesChanged')
            changed.set_destination(target)
            changed.append('org.bluez.Device1', {'ServiceData': service_data(sys.argv[3])}, dbus.Array([], signature='s'), signature='sa{sv}as')
            bus.send_message(changed)
            added = dbus.lowlevel.SignalMessage('/', 'org.freedesktop.DBus.ObjectManager', 'InterfacesAdded')
            added.set_destination(target)
            device = {'Address': '77:77:77:77:77:77', 'ServiceData': service_data(sys.argv[4])}
            added.append(dbus.ObjectPath('/org/bluez/hci0/dev_77_77_77_77_77_77'), {'org.bluez.Device1': device}, signature='oa{sa{sv}}')
            bus.send_message(added)
        daemon.GetId(dbus_interface='org.freedesktop.DBus')
        print(len(targets))
        """

    /// Drives the mock through its control interfaces: `adapter` adds hci0; `advert HEX` adds a
    /// device and has the mock (the owner of org.bluez) emit a PropertiesChanged with its
    /// ServiceData from the device's path (the mock's `EmitSignal`).
    static let ownerControl = """
        import sys, dbus
        bus = dbus.bus.BusConnection(sys.argv[1])
        bluez = bus.get_object('org.bluez', '/org/bluez')
        if sys.argv[2] == 'adapter':
            bluez.AddAdapter('hci0', 'host', dbus_interface='org.bluez.Mock')
        else:
            path = bluez.AddDevice('hci0', '0B:0B:0B:0B:0B:0B', 'phone', dbus_interface='org.bluez.Mock')
            data = dbus.Dictionary({'\(uuid)': dbus.Array(bytes.fromhex(sys.argv[3]), signature='y')}, signature='sv', variant_level=1)
            changed = dbus.Dictionary({'ServiceData': data}, signature='sv')
            device = bus.get_object('org.bluez', path)
            device.EmitSignal('org.freedesktop.DBus.Properties', 'PropertiesChanged', 'sa{sv}as', ['org.bluez.Device1', changed, dbus.Array([], signature='s')], dbus_interface='org.freedesktop.DBus.Mock')
        """

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func python(_ script: String, _ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script] + arguments
        let output = try await ChildProcess.run(process)
        guard output.status == 0 else {
            throw PrivateSystemBus.Failure("python failed: \(String(decoding: output.stderr, as: UTF8.self))")
        }
        return String(decoding: output.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func signalsFromAConnectionThatDoesNotOwnOrgBluezAreDropped() async throws {
        let bus = try await PrivateSystemBus.start()
        defer { bus.stop() }
        let bluetoothd = try await bus.startMockBluetoothd()
        _ = try await Self.python(Self.ownerControl, [bus.address, "adapter"])

        let scanner = BlueZDBusScanner(adapter: "hci0", logger: TestSupport.logger, busAddress: bus.address)
        // scan() returns once StartDiscovery is answered: the scanner listens from here on.
        let stream = try await scanner.scan(for: [BLEServiceUUID.fido])
        let addressed = try await Self.python(
            Self.impostor, [bus.address, "\(getpid())", Self.hex(Self.impostorData), Self.hex(Self.impostorAddedData)])
        #expect(addressed == "1", "the impostor found no single scanner connection")
        // Only now does the owner speak: its advert is queued behind the impostor's two.
        _ = try await Self.python(Self.ownerControl, [bus.address, "advert", Self.hex(Self.ownerData)])

        // Ending the stream (firstAdvert stops iterating) stops the scan.
        let first = try await TestSupport.firstAdvert(from: stream, within: .seconds(60))
        await bluetoothd.stop()
        let advert = try #require(first, "no advert at all, not even the owner's")
        #expect(advert.serviceData == Self.ownerData, "an impostor's advert got through: \(advert)")
        #expect(advert.address == BLEAddress(string: "0B:0B:0B:0B:0B:0B"))
    }
}
