import Testing

@testable import HybridBluetooth
@testable import HybridDBus

/// The sender rule of every D-Bus consumer, without a bus: only the unique name that owns the
/// watched name is believed, the owner is followed through `NameOwnerChanged` from the bus
/// (D-Bus specification, "Message Bus Messages": `NameOwnerChanged` is `sss`: name, old owner,
/// new owner, empty when none), and replies come from whom the call went to.
@Suite struct DBusPeerFilterTests {
    static let bus = "org.freedesktop.DBus"

    static func signal(
        _ filter: inout DBusPeerFilter,
        from sender: String?,
        interface: String = "org.freedesktop.DBus.Properties",
        member: String = "PropertiesChanged",
        _ arguments: [DBusValue] = []
    ) -> Bool {
        filter.admit(kind: .signal, sender: sender, interface: interface, member: member) { arguments }
    }

    static func ownerChanged(
        _ filter: inout DBusPeerFilter, from sender: String = bus, name: String, old: String, new: String
    )
        -> Bool
    {
        signal(
            &filter, from: sender, interface: bus, member: "NameOwnerChanged",
            [.string(name), .string(old), .string(new)])
    }

    @Test func onlyTheResolvedOwnerIsBelieved() {
        var filter = DBusPeerFilter(watchedName: "org.bluez")
        // Before GetNameOwner answered, nobody is.
        #expect(!Self.signal(&filter, from: ":1.7"))
        filter.ownerResolved(":1.7")
        #expect(Self.signal(&filter, from: ":1.7"))
        #expect(!Self.signal(&filter, from: ":1.8"))
        #expect(!Self.signal(&filter, from: nil))
        // A well-known name is never a sender on a bus (the bus stamps unique names).
        #expect(!Self.signal(&filter, from: "org.bluez"))
        #expect(
            filter.admit(kind: .methodCall, sender: ":1.7", interface: "org.bluez.LEAdvertisement1", member: "Release")
            { [] })
        #expect(
            !filter.admit(kind: .methodCall, sender: ":1.9", interface: "org.bluez.LEAdvertisement1", member: "Release")
            { [] })
    }

    @Test func theOwnerIsFollowedThroughNameOwnerChangedFromTheBus() {
        var filter = DBusPeerFilter(watchedName: "org.bluez")
        filter.ownerResolved(":1.7")
        // bluetoothd exits: nobody is believed.
        #expect(!Self.ownerChanged(&filter, name: "org.bluez", old: ":1.7", new: ""))
        #expect(filter.owner == nil)
        #expect(!Self.signal(&filter, from: ":1.7"))
        // It comes back under a new unique name.
        #expect(!Self.ownerChanged(&filter, name: "org.bluez", old: "", new: ":1.12"))
        #expect(Self.signal(&filter, from: ":1.12"))
        #expect(!Self.signal(&filter, from: ":1.7"))
    }

    @Test func nameOwnerChangedFromAnyoneButTheBusOrForAnotherNameChangesNothing() {
        var filter = DBusPeerFilter(watchedName: "org.bluez")
        filter.ownerResolved(":1.7")
        // An impostor claims the name moved to it.
        #expect(!Self.ownerChanged(&filter, from: ":1.9", name: "org.bluez", old: ":1.7", new: ":1.9"))
        #expect(filter.owner == ":1.7")
        // Another name's change.
        #expect(!Self.ownerChanged(&filter, name: "org.freedesktop.Notifications", old: "", new: ":1.9"))
        #expect(filter.owner == ":1.7")
        // A malformed one.
        #expect(
            !Self.signal(
                &filter, from: Self.bus, interface: Self.bus, member: "NameOwnerChanged", [.string("org.bluez")]))
        #expect(filter.owner == ":1.7")
        // Other signals from the bus (NameAcquired) are not the owner's.
        #expect(!Self.signal(&filter, from: Self.bus, interface: Self.bus, member: "NameAcquired", [.string(":1.30")]))
    }

    @Test func repliesComeFromWhomTheCallWentTo() {
        var filter = DBusPeerFilter(watchedName: "org.bluez")
        filter.ownerResolved(":1.7")
        #expect(filter.acceptsReply(from: ":1.7", toCallFor: "org.bluez", isError: false))
        #expect(filter.acceptsReply(from: ":1.7", toCallFor: "org.bluez", isError: true))
        #expect(!filter.acceptsReply(from: ":1.8", toCallFor: "org.bluez", isError: false))
        #expect(!filter.acceptsReply(from: ":1.8", toCallFor: "org.bluez", isError: true))
        // The bus answers for itself, and reports errors (ServiceUnknown) for any call.
        #expect(filter.acceptsReply(from: Self.bus, toCallFor: Self.bus, isError: false))
        #expect(filter.acceptsReply(from: Self.bus, toCallFor: "org.bluez", isError: true))
        #expect(!filter.acceptsReply(from: Self.bus, toCallFor: "org.bluez", isError: false))
        #expect(!filter.acceptsReply(from: ":1.7", toCallFor: Self.bus, isError: false))
        // A unique destination answers for itself; an unfollowed well-known name has no trusted replier.
        #expect(filter.acceptsReply(from: ":1.20", toCallFor: ":1.20", isError: false))
        #expect(!filter.acceptsReply(from: ":1.21", toCallFor: ":1.20", isError: false))
        #expect(!filter.acceptsReply(from: ":1.7", toCallFor: "org.freedesktop.Notifications", isError: false))
        #expect(!filter.acceptsReply(from: nil, toCallFor: "org.bluez", isError: false))
    }

    @Test func aConnectionThatFollowsNoNameBelievesOnlyTheBus() {
        var filter = DBusPeerFilter(watchedName: nil)
        filter.ownerResolved(nil)
        #expect(!Self.signal(&filter, from: ":1.7"))
        #expect(!Self.ownerChanged(&filter, name: "org.bluez", old: "", new: ":1.7"))
        #expect(filter.owner == nil)
        #expect(filter.acceptsReply(from: Self.bus, toCallFor: Self.bus, isError: false))
        #expect(!filter.acceptsReply(from: ":1.7", toCallFor: "org.bluez", isError: false))
    }
}
