import HybridDBus

/// What bluetoothd's signals say about an adapter (BlueZ `doc/org.bluez.Adapter.rst` and the
/// D-Bus specification's `org.freedesktop.DBus.ObjectManager` and `org.freedesktop.DBus.Properties`):
/// `InterfacesAdded(o path, a{sa{sv}} interfaces_and_properties)`,
/// `InterfacesRemoved(o path, as interfaces)` on the object manager at `/`, and
/// `PropertiesChanged(s interface, a{sv} changed, as invalidated)` on the adapter's own object.
/// Sans-IO: the watch hands it each signal it received; it returns the observation for
/// ``AdapterPresence``, or `nil` for a signal about something else.
enum BlueZAdapterSignal {
    static let adapterInterface = "org.bluez.Adapter1"
    static let objectManagerInterface = "org.freedesktop.DBus.ObjectManager"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    /// The match rules that subscribe to these signals from `sender` (bluetoothd's name).
    static func matchRules(sender: String) -> [String] {
        [
            "type='signal',sender='\(sender)',interface='\(objectManagerInterface)',member='InterfacesAdded'",
            "type='signal',sender='\(sender)',interface='\(objectManagerInterface)',member='InterfacesRemoved'",
            "type='signal',sender='\(sender)',interface='\(propertiesInterface)',member='PropertiesChanged',"
                + "arg0='\(adapterInterface)'",
        ]
    }

    /// The observation one signal carries.
    /// - Parameters:
    ///   - path: the object that sent it (the adapter's, for PropertiesChanged).
    ///   - arguments: its body.
    static func observation(
        interface: String?, member: String?, path: String?, arguments: [DBusValue]
    ) -> AdapterPresence.Observation? {
        switch (interface, member) {
        case (propertiesInterface, "PropertiesChanged"):
            guard let path, arguments.count >= 2, arguments[0].string == adapterInterface,
                let powered = arguments[1].stringKeyedEntries?["Powered"]?.bool
            else { return nil }
            return .poweredChanged(path: path, powered: powered)
        case (objectManagerInterface, "InterfacesAdded"):
            guard arguments.count >= 2, case .objectPath(let object) = arguments[0].unwrapped,
                let interfaces = arguments[1].stringKeyedEntries
            else { return nil }
            let powered = interfaces[adapterInterface]?.stringKeyedEntries?["Powered"]?.bool
            return .interfacesAdded(path: object, interfaces: interfaces.keys.sorted(), powered: powered)
        case (objectManagerInterface, "InterfacesRemoved"):
            guard arguments.count >= 2, case .objectPath(let object) = arguments[0].unwrapped,
                case .array(_, let names) = arguments[1].unwrapped
            else { return nil }
            return .interfacesRemoved(path: object, interfaces: names.compactMap(\.string))
        default:
            return nil
        }
    }
}
