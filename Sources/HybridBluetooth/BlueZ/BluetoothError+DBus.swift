import HybridDBus

extension BluetoothError {
    /// Maps a D-Bus error reply from bluetoothd or the bus onto a case the user can act on.
    static func fromDBusError(name: String, message: String, adapter: String?) -> BluetoothError {
        switch name {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            return .unavailable(
                reason: "bluetoothd is not running (no org.bluez on the system bus); start it, or use --ble hci"
            )
        case "org.freedesktop.DBus.Error.AccessDenied", "org.bluez.Error.NotAuthorized",
            "org.freedesktop.DBus.Error.AuthFailed":
            return .permissionDenied
        case "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownInterface":
            return .noAdapter(adapter)
        case "org.bluez.Error.NotReady":
            return .adapterDown(adapter ?? "adapter")
        case "org.bluez.Error.InProgress", "org.bluez.Error.Busy":
            return .adapterBusy(adapter ?? "adapter")
        default:
            return .bluezFailed(name: name, message: message)
        }
    }

    /// `error` as this module reports it: a ``DBusFailure`` becomes the case a user can act on
    /// (error replies through ``fromDBusError(name:message:adapter:)``); any other error is kept.
    static func mapping(_ error: any Error, adapter: String?) -> any Error {
        guard let failure = error as? DBusFailure else { return error }
        switch failure {
        case .unavailable(let reason): return BluetoothError.unavailable(reason: reason)
        case .errorReply(let name, let message): return fromDBusError(name: name, message: message, adapter: adapter)
        case .refused(let name, let message): return BluetoothError.bluezFailed(name: name, message: message)
        case .systemCallFailed(let operation, let errno):
            return BluetoothError.systemCallFailed(operation: operation, errno: errno)
        case .malformedMessage: return BluetoothError.malformedReport(.invalidField)
        }
    }
}

extension DBusConnection {
    /// Calls a method (``DBusConnection/call(_:timeoutMilliseconds:)``) on behalf of `adapter`,
    /// its failure mapped by ``BluetoothError/mapping(_:adapter:)``.
    @discardableResult
    func call(
        _ message: DBusMessage,
        adapter: String?,
        timeoutMilliseconds: Int32 = DBusConnection.replyTimeoutMilliseconds
    ) throws -> [DBusValue] {
        do {
            return try call(message, timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            throw BluetoothError.mapping(error, adapter: adapter)
        }
    }
}
