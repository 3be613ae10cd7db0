import CDBus

#if canImport(Glibc)
    import Glibc
#endif

/// A private connection to the system bus (`DBUS_SYSTEM_BUS_ADDRESS` honoured by libdbus), or to
/// the session bus for desktop notifications (`DBUS_SESSION_BUS_ADDRESS`). It
/// blocks, so it lives on one thread of its own from open to close and is deliberately not
/// `Sendable`.
package final class DBusConnection {
    private let pointer: OpaquePointer
    /// Receives method calls addressed to us and signals while we wait for a reply or a wake.
    package var onIncoming: (DBusMessage) -> Void = { _ in }

    /// Default time to wait for a reply from bluetoothd or the bus.
    package static let replyTimeoutMilliseconds: Int32 = 10_000

    /// Whose messages are believed: replies from the bus, and whatever the owner of the name given to
    /// ``followOwner(of:)`` sends. Everything else is dropped before ``onIncoming`` or a reply wait
    /// sees it.
    private var peers = DBusPeerFilter(watchedName: nil)

    /// - Throws: ``DBusFailure/unavailable(reason:)`` when there is no such bus.
    package init(bus: DBusBusType = DBUS_BUS_SYSTEM) throws {
        let name = bus == DBUS_BUS_SYSTEM ? "system" : "session"
        pointer = try Self.open(name: name) { dbus_bus_get_private(bus, &$0) }
    }

    /// A private connection to the bus at `address` (D-Bus address syntax), registered with it.
    /// - Throws: ``DBusFailure/unavailable(reason:)`` when it cannot connect or register.
    package init(address: String) throws {
        pointer = try Self.open(name: address) { error in
            guard let connection = dbus_connection_open_private(address, &error) else { return nil }
            guard dbus_bus_register(connection, &error) != 0 else {
                dbus_connection_close(connection)
                dbus_connection_unref(connection)
                return nil
            }
            return connection
        }
    }

    private static func open(name: String, _ connect: (inout DBusError) -> OpaquePointer?) throws -> OpaquePointer {
        _ = dbus_threads_init_default()
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let connection = connect(&error) else {
            throw DBusFailure.unavailable(
                reason: "cannot connect to the D-Bus \(name) bus: \(Self.message(of: error))")
        }
        // libdbus would otherwise _exit() the whole process when the bus goes away.
        dbus_connection_set_exit_on_disconnect(connection, 0)
        return connection
    }

    /// From now on, believes only the unique name that owns `name` (`org.bluez`), following it as
    /// it changes hands (``DBusPeerFilter``). Call before talking to `name`: replies to calls for
    /// any other well-known name are not believed.
    /// - Throws: ``DBusFailure/errorReply(name:message:)`` (`NameHasNoOwner`) when nobody owns `name`.
    package func followOwner(of name: String) throws {
        // Subscribe first: a change after GetNameOwner is answered then arrives after its reply.
        try addMatch(DBusPeerFilter.ownerChangedMatchRule(for: name))
        peers = DBusPeerFilter(watchedName: name)
        let reply = try call(
            .methodCall(
                destination: DBusPeerFilter.busName,
                path: "/org/freedesktop/DBus",
                interface: DBusPeerFilter.busName,
                member: "GetNameOwner",
                arguments: [.string(name)]
            )
        )
        peers.ownerResolved(reply.first?.string)
    }

    /// The unique name the bus gave this connection (`:1.42`).
    package var uniqueName: String? { dbus_bus_get_unique_name(pointer).map { String(cString: $0) } }

    deinit {
        dbus_connection_close(pointer)
        dbus_connection_unref(pointer)
    }

    /// Sends without waiting for a reply (replies we produce, signals).
    package func send(_ message: DBusMessage) {
        _ = dbus_connection_send(pointer, message.pointer, nil)
        dbus_connection_flush(pointer)
    }

    /// Calls a method and waits for its reply, dispatching other incoming messages to ``onIncoming``
    /// meanwhile (bluetoothd calls back into our advertisement object during RegisterAdvertisement).
    /// A reply is believed only from the destination's owner (``followOwner(of:)``) or the bus.
    /// - Returns: the reply's arguments.
    /// - Throws: ``DBusFailure/errorReply(name:message:)`` when the peer answers with an error,
    ///   ``DBusFailure/refused(name:message:)`` when no reply comes in time.
    @discardableResult
    package func call(
        _ message: DBusMessage,
        timeoutMilliseconds: Int32 = replyTimeoutMilliseconds
    ) throws
        -> [DBusValue]
    {
        var serial: UInt32 = 0
        guard dbus_connection_send(pointer, message.pointer, &serial) != 0 else {
            throw DBusFailure.unavailable(reason: "out of memory sending a D-Bus message")
        }
        dbus_connection_flush(pointer)
        let deadline = ContinuousClock.now + .milliseconds(timeoutMilliseconds)
        while ContinuousClock.now < deadline {
            while let incoming = popMessage() {
                if incoming.replySerial == serial && (incoming.kind == .methodReturn || incoming.kind == .error) {
                    guard
                        peers.acceptsReply(
                            from: incoming.sender, toCallFor: message.destination, isError: incoming.kind == .error)
                    else { continue }
                    if incoming.kind == .error {
                        let text = (try? incoming.arguments().first?.string) ?? nil
                        throw DBusFailure.errorReply(name: incoming.errorName ?? "unknown", message: text ?? "")
                    }
                    return try incoming.arguments()
                }
                dispatch(incoming)
            }
            // Blocks until something arrives or the reply's deadline, not in slices.
            let (seconds, attoseconds) = (deadline - .now).components
            let remaining = max(1, Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000))
            guard dbus_connection_read_write(pointer, remaining) != 0 else { throw Self.disconnected }
        }
        throw DBusFailure.refused(
            name: "org.freedesktop.DBus.Error.NoReply",
            message: "no reply within \(timeoutMilliseconds) ms"
        )
    }

    /// Dispatches incoming messages from the followed owner to ``onIncoming`` until `wakeDescriptor`
    /// becomes readable (the caller's stop signal).
    /// - Throws: when the bus connection drops.
    package func serve(untilReadable wakeDescriptor: Int32) throws {
        var descriptor: Int32 = -1
        guard dbus_connection_get_unix_fd(pointer, &descriptor) != 0 else { throw Self.disconnected }
        while true {
            while let incoming = popMessage() { dispatch(incoming) }
            var entries = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&entries, 2, -1) < 0 && errno != EINTR {
                throw DBusFailure.systemCallFailed(operation: "poll D-Bus", errno: errno)
            }
            if entries[1].revents != 0 { return }
            guard dbus_connection_read_write(pointer, 0) != 0 else { throw Self.disconnected }
        }
    }

    /// The connection's socket, for a caller that polls it with other descriptors
    /// (then calls ``drainIncoming()`` when it is readable).
    /// - Throws: when the connection has no socket (closed).
    package func unixDescriptor() throws -> Int32 {
        var descriptor: Int32 = -1
        guard dbus_connection_get_unix_fd(pointer, &descriptor) != 0 else { throw Self.disconnected }
        return descriptor
    }

    /// Reads what the socket holds without blocking and hands believed messages to ``onIncoming``.
    /// - Returns: how many messages arrived, believed or not (a change of the followed name's
    ///   owner is one of them).
    /// - Throws: when the bus connection drops.
    package func drainIncoming() throws -> Int {
        guard dbus_connection_read_write(pointer, 0) != 0 else { throw Self.disconnected }
        var count = 0
        while let incoming = popMessage() {
            count += 1
            dispatch(incoming)
        }
        return count
    }

    /// Subscribes to signals matching `rule` (D-Bus match-rule syntax).
    package func addMatch(_ rule: String) throws {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        dbus_bus_add_match(pointer, rule, &error)
        if dbus_error_is_set(&error) != 0 {
            throw DBusFailure.refused(name: String(cString: error.name), message: Self.message(of: error))
        }
    }

    /// Hands `message` to ``onIncoming`` if ``peers`` believes its sender.
    private func dispatch(_ message: DBusMessage) {
        let admitted = peers.admit(
            kind: message.kind, sender: message.sender, interface: message.interface, member: message.member
        ) { (try? message.arguments()) ?? [] }
        if admitted { onIncoming(message) }
    }

    private func popMessage() -> DBusMessage? {
        dbus_connection_pop_message(pointer).map { DBusMessage(owning: $0) }
    }

    private static let disconnected = DBusFailure.unavailable(reason: "the D-Bus system bus connection closed")

    private static func message(of error: DBusError) -> String {
        error.message.map { String(cString: $0) } ?? "unknown error"
    }
}
