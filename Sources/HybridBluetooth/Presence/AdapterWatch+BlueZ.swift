import HybridDBus

extension AdapterWatch {
    /// Watches `requested` (`hciN`, or the first powered adapter) through bluetoothd's signals
    /// (``BlueZAdapterSignal``) until `stop` is signalled, blocking in between: `GetManagedObjects`
    /// gives the state at the start, then `InterfacesAdded`, `InterfacesRemoved` and the adapter's
    /// `PropertiesChanged` (`Powered`) each change. Only bluetoothd's own messages are believed
    /// (``DBusConnection/followOwner(of:)``).
    /// - Returns: `false` at once, having reported nothing, when bluetoothd cannot be reached (the
    ///   caller then watches the kernel instead).
    static func watchBluetoothd(
        _ requested: String?, until stop: WakeSignal, report: @escaping (AdapterPresence.Change) -> Void
    ) -> Bool {
        let connection: DBusConnection
        let objects: DBusValue
        do {
            connection = try DBusConnection()
            for rule in BlueZAdapterSignal.matchRules(sender: BlueZ.service) { try connection.addMatch(rule) }
            try connection.followOwner(of: BlueZ.service)
            objects = try connection.bluezManagedObjects(adapter: requested)
        } catch {
            return false
        }
        let adapters = BlueZ.adapters(inManagedObjects: objects)
        let name = requested ?? adapters.first(where: \.powered)?.name ?? adapters.first?.name ?? "hci0"
        var presence = AdapterPresence(adapter: name)
        let path = "/org/bluez/\(name)"
        let start: AdapterPresence.Observation =
            if let adapter = adapters.first(where: { $0.name == name }) {
                .interfacesAdded(
                    path: path, interfaces: [BlueZAdapterSignal.adapterInterface], powered: adapter.powered)
            } else {
                .interfacesRemoved(path: path, interfaces: [BlueZAdapterSignal.adapterInterface])
            }
        if let change = presence.observe(start) { report(change) }
        connection.onIncoming = { message in
            let observation = BlueZAdapterSignal.observation(
                interface: message.interface, member: message.member, path: message.path,
                arguments: (try? message.arguments()) ?? [])
            if let observation, let change = presence.observe(observation) { report(change) }
        }
        // A dropped bus connection ends the watch: nothing more can be said.
        try? connection.serve(untilReadable: stop.pollDescriptor)
        return true
    }
}
