/// Which incoming D-Bus messages a consumer may act on: only those sent by the unique name that
/// currently owns one well-known name (``watchedName``, e.g. `org.bluez`).
///
/// A match rule's `sender='org.bluez'` filters broadcast signals only: any connection on the bus
/// can address a signal (or a method call, or a reply) to our connection directly, and the stock
/// system bus policy lets every user send signals. The bus does stamp each message with the true
/// unique name of its sender (`:1.42`), so the owner's unique name is resolved once
/// (`GetNameOwner`) and followed (`NameOwnerChanged`, believed from the bus only), and everything
/// else is dropped.
///
/// Sans-IO: ``DBusConnection`` feeds it the owner events and asks it about every message.
struct DBusPeerFilter: Equatable, Sendable {
    /// The bus itself: the sender of `NameOwnerChanged` and of the errors it generates for calls
    /// (`ServiceUnknown`, `AccessDenied`). No connection can take this name.
    static let busName = "org.freedesktop.DBus"

    /// The well-known name whose owner we listen to; `nil` for a connection that only talks to the
    /// bus (then no peer message is accepted).
    let watchedName: String?
    /// The owner's unique name, or `nil` while the name has no owner (then nothing is accepted).
    private(set) var owner: String?

    init(watchedName: String?) {
        self.watchedName = watchedName
    }

    /// The match rule that subscribes to `name`'s `NameOwnerChanged` signals.
    static func ownerChangedMatchRule(for name: String) -> String {
        "type='signal',sender='\(busName)',interface='\(busName)',member='NameOwnerChanged',arg0='\(name)'"
    }

    /// The answer to `GetNameOwner(watchedName)`: the owner's unique name, or `nil` for
    /// `NameHasNoOwner`.
    mutating func ownerResolved(_ uniqueName: String?) {
        owner = uniqueName.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Decides about one incoming message (a signal, a method call, or a reply that no pending call
    /// claimed): `true` to hand it on. A `NameOwnerChanged` from the bus for the watched name is
    /// consumed here (the owner moves, or goes: an empty new owner) and never handed on.
    /// - Parameter arguments: read only for a `NameOwnerChanged` from the bus (`sss`).
    mutating func admit(
        kind: DBusMessage.Kind,
        sender: String?,
        interface: String?,
        member: String?,
        arguments: () -> [DBusValue]
    ) -> Bool {
        if kind == .signal, sender == Self.busName, interface == Self.busName, member == "NameOwnerChanged" {
            let values = arguments()
            if values.count == 3, watchedName != nil, values[0].string == watchedName, let newOwner = values[2].string {
                ownerResolved(newOwner)
            }
            return false
        }
        return isOwner(sender)
    }

    /// Whether a reply to our call to `destination` may come from `sender`. The bus answers for
    /// itself and reports errors for any call; a unique name answers for itself; the watched name's
    /// current owner answers for it. Calls to any other well-known name have no trusted replier.
    func acceptsReply(from sender: String?, toCallFor destination: String?, isError: Bool) -> Bool {
        guard let sender else { return false }
        if sender == Self.busName { return isError || destination == Self.busName }
        guard let destination else { return false }
        if destination.hasPrefix(":") { return sender == destination }
        return destination == watchedName && isOwner(sender)
    }

    private func isOwner(_ sender: String?) -> Bool {
        owner != nil && sender == owner
    }
}
