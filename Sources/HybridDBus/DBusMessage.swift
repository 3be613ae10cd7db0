import CDBus

/// An owned libdbus message. Used on one thread only, hence not `Sendable`.
package final class DBusMessage {
    package let pointer: OpaquePointer

    /// Takes over a reference the caller owns (e.g. from `dbus_connection_pop_message`).
    package init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        dbus_message_unref(pointer)
    }

    /// A method call to bluetoothd or the bus itself.
    package static func methodCall(
        destination: String,
        path: String,
        interface: String,
        member: String,
        arguments: [DBusValue] = []
    )
        throws -> DBusMessage
    {
        guard let raw = dbus_message_new_method_call(destination, path, interface, member) else {
            throw DBusFailure.unavailable(reason: "out of memory building a D-Bus message")
        }
        let message = DBusMessage(owning: raw)
        try message.append(arguments)
        return message
    }

    /// A successful reply to `call`.
    package static func reply(to call: DBusMessage, arguments: [DBusValue] = []) throws -> DBusMessage {
        guard let raw = dbus_message_new_method_return(call.pointer) else {
            throw DBusFailure.unavailable(reason: "out of memory building a D-Bus reply")
        }
        let message = DBusMessage(owning: raw)
        try message.append(arguments)
        return message
    }

    /// An error reply to `call`.
    package static func errorReply(to call: DBusMessage, name: String, text: String) -> DBusMessage? {
        dbus_message_new_error(call.pointer, name, text).map { DBusMessage(owning: $0) }
    }

    package enum Kind: Equatable {
        case methodCall, methodReturn, error, signal, other
    }

    package var kind: Kind {
        switch dbus_message_get_type(pointer) {
        case DBUS_MESSAGE_TYPE_METHOD_CALL: .methodCall
        case DBUS_MESSAGE_TYPE_METHOD_RETURN: .methodReturn
        case DBUS_MESSAGE_TYPE_ERROR: .error
        case DBUS_MESSAGE_TYPE_SIGNAL: .signal
        default: .other
        }
    }

    package var path: String? { dbus_message_get_path(pointer).map { String(cString: $0) } }
    package var interface: String? { dbus_message_get_interface(pointer).map { String(cString: $0) } }
    package var member: String? { dbus_message_get_member(pointer).map { String(cString: $0) } }
    package var errorName: String? { dbus_message_get_error_name(pointer).map { String(cString: $0) } }
    /// The sending connection's unique name (`:1.42`), stamped by the bus (a peer cannot forge it),
    /// or `org.freedesktop.DBus` for the bus itself.
    package var sender: String? { dbus_message_get_sender(pointer).map { String(cString: $0) } }
    /// The name the message was addressed to (`org.bluez`), if any.
    package var destination: String? { dbus_message_get_destination(pointer).map { String(cString: $0) } }
    package var replySerial: UInt32 { dbus_message_get_reply_serial(pointer) }
    package var expectsReply: Bool { dbus_message_get_no_reply(pointer) == 0 }

    /// The message's arguments. Throws ``DBusFailure/malformedMessage`` for types we do not
    /// read (unix fds).
    package func arguments() throws -> [DBusValue] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(pointer, &iterator) != 0 else { return [] }
        return try DBusValueReader.readAll(&iterator)
    }

    /// Appends `values` as arguments.
    package func append(_ values: [DBusValue]) throws {
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(pointer, &iterator)
        for value in values { try DBusValueWriter.write(value, into: &iterator) }
    }
}
