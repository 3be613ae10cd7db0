import HybridDBus

/// bluetoothd calls shared by the D-Bus advertiser and scanner. Blocking.
extension DBusConnection {
    /// Finds `requested` (`hciN`) or the first powered adapter among bluetoothd's objects.
    func bluezAdapter(_ requested: String?) throws -> BlueZ.Adapter {
        try BlueZ.choose(requested, from: BlueZ.adapters(inManagedObjects: bluezManagedObjects(adapter: requested)))
    }

    /// bluetoothd's objects (`GetManagedObjects`): adapters, devices and their properties.
    func bluezManagedObjects(adapter requested: String?) throws -> DBusValue {
        let reply = try call(
            .methodCall(
                destination: BlueZ.service,
                path: "/",
                interface: BlueZ.objectManagerInterface,
                member: "GetManagedObjects"
            ),
            adapter: requested
        )
        guard let objects = reply.first else {
            throw BluetoothError.bluezFailed(name: "GetManagedObjects", message: "empty reply")
        }
        return objects
    }

    /// Calls `member` on `adapter`'s `interface`.
    @discardableResult
    func callAdapter(
        _ adapter: BlueZ.Adapter,
        interface: String,
        member: String,
        _ arguments: [DBusValue] = [],
        timeoutMilliseconds: Int32 = DBusConnection.replyTimeoutMilliseconds
    ) throws -> [DBusValue] {
        try call(
            .methodCall(
                destination: BlueZ.service,
                path: adapter.path,
                interface: interface,
                member: member,
                arguments: arguments
            ),
            adapter: adapter.name,
            timeoutMilliseconds: timeoutMilliseconds
        )
    }
}

/// Whether bluetoothd is reachable: the default-backend rule of ``BLEBackend/automatic(adapter:)``.
public enum BluetoothdProbe {
    /// `true` when the system bus (`DBUS_SYSTEM_BUS_ADDRESS` honoured) answers and `org.bluez` has an
    /// owner. Runs on its own thread; gives up after 2 s.
    public static func isReachable() async -> Bool {
        await BlockingCall.perform(name: "bluez-probe") {
            guard let connection = try? DBusConnection(),
                let reply = try? connection.call(
                    .methodCall(
                        destination: "org.freedesktop.DBus",
                        path: "/org/freedesktop/DBus",
                        interface: "org.freedesktop.DBus",
                        member: "NameHasOwner",
                        arguments: [.string(BlueZ.service)]
                    ),
                    adapter: nil,
                    timeoutMilliseconds: 2000
                )
            else { return false }
            return reply.first?.bool ?? false
        }
    }
}
