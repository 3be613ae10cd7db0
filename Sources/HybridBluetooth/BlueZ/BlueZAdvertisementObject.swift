import HybridDBus

/// Our exported `org.bluez.LEAdvertisement1` object: answers bluetoothd's property reads and its
/// `Release` call. Lives on the advertiser's thread.
struct BlueZAdvertisementObject {
    let path: String
    let properties: [(String, DBusValue)]

    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN" \
        "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node><interface name="org.bluez.LEAdvertisement1"><method name="Release"/></interface>\
        <interface name="org.freedesktop.DBus.Properties"><method name="GetAll"><arg type="s" direction="in"/>\
        <arg type="a{sv}" direction="out"/></method><method name="Get"><arg type="s" direction="in"/>\
        <arg type="s" direction="in"/><arg type="v" direction="out"/></method></interface></node>
        """

    /// The reply to an incoming message, if it is a method call that needs one. `released` is set when
    /// bluetoothd called `Release` (it dropped the advert, e.g. because the adapter went away).
    func reply(to message: DBusMessage, released: inout Bool) -> DBusMessage? {
        guard message.kind == .methodCall else { return nil }
        guard message.path == path else {
            return message.expectsReply
                ? DBusMessage.errorReply(
                    to: message,
                    name: "org.freedesktop.DBus.Error.UnknownObject",
                    text: "no such object"
                )
                : nil
        }
        let arguments = (try? message.arguments()) ?? []
        switch (message.interface, message.member) {
        case (BlueZ.propertiesInterface, "GetAll"):
            let all = arguments.first?.string == BlueZ.advertisementInterface ? properties : []
            return try? DBusMessage.reply(to: message, arguments: [.stringVariantDictionary(all)])
        case (BlueZ.propertiesInterface, "Get"):
            guard arguments.count == 2, arguments[0].string == BlueZ.advertisementInterface,
                let value = properties.first(where: { $0.0 == arguments[1].string })?.1
            else {
                return DBusMessage.errorReply(
                    to: message,
                    name: "org.freedesktop.DBus.Error.InvalidArgs",
                    text: "no such property"
                )
            }
            return try? DBusMessage.reply(to: message, arguments: [.variant(value)])
        case (BlueZ.advertisementInterface, "Release"), (nil, "Release"):
            released = true
            return try? DBusMessage.reply(to: message)
        case (BlueZ.introspectableInterface, "Introspect"):
            return try? DBusMessage.reply(to: message, arguments: [.string(Self.introspection)])
        default:
            return DBusMessage.errorReply(
                to: message,
                name: "org.freedesktop.DBus.Error.UnknownMethod",
                text: "unknown method"
            )
        }
    }
}
