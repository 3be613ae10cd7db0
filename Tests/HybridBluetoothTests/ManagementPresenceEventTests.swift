import Testing

@testable import HybridBluetooth

/// The management channel's presence events as BlueZ's `doc/mgmt-api.txt` lays them out (header:
/// Event Code, Controller Index, Parameter Length, little-endian): "Index Added Event" (0x0004, no
/// parameters), "Index Removed Event" (0x0005, no parameters), "New Settings Event" (0x0006,
/// Current_Settings, 4 octets: bit 0 Powered, bit 9 Low Energy), and what each tells the adapter
/// watch's ``AdapterPresence``.
@Suite struct ManagementPresenceEventTests {
    @Test func indexAddedAndRemovedNameTheController() throws {
        #expect(try ManagementMessage.presenceEvent(from: Fixture.bytes("0400 0100 0000")) == .indexAdded(index: 1))
        #expect(
            try ManagementMessage.presenceEvent(from: Fixture.bytes("0500 0201 0000")) == .indexRemoved(index: 0x0102))
    }

    @Test func newSettingsCarriesTheCurrentSettings() throws {
        // btmgmt's "new settings: powered bondable le" (bits 0, 4, 9), then "bondable le".
        let on = try ManagementMessage.presenceEvent(from: Fixture.bytes("0600 0100 0400 11020000"))
        #expect(on == .newSettings(index: 1, ManagementSettings(rawValue: 0x211)))
        let off = try ManagementMessage.presenceEvent(from: Fixture.bytes("0600 0100 0400 10020000"))
        #expect(off == .newSettings(index: 1, ManagementSettings(rawValue: 0x210)))
    }

    @Test func otherEventsAreNotPresenceEvents() throws {
        // Class Of Device Changed (0x0007, 3 octets) and a Command Complete for Read Controller
        // Information (0x0001).
        #expect(try ManagementMessage.presenceEvent(from: Fixture.bytes("0700 0000 0300 0c0100")) == nil)
        #expect(try ManagementMessage.presenceEvent(from: Fixture.bytes("0100 0000 0300 0400 11")) == nil)
    }

    @Test func truncatedEventsAreTypedErrors() {
        #expect(throws: BluetoothError.malformedReport(.truncated)) {
            try ManagementMessage.presenceEvent(from: Fixture.bytes("0600 01"))
        }
        // The length says 4, two octets follow.
        #expect(throws: BluetoothError.malformedReport(.truncated)) {
            try ManagementMessage.presenceEvent(from: Fixture.bytes("0600 0100 0400 1102"))
        }
        // New Settings whose length claims fewer octets than Current_Settings has.
        #expect(throws: BluetoothError.malformedReport(.truncated)) {
            try ManagementMessage.presenceEvent(from: Fixture.bytes("0600 0100 0200 1102"))
        }
    }

    /// Power off and on (btmgmt, bluetoothd), removal and a controller registered anew, in the
    /// order the kernel reports them: each is one change, another controller's events none.
    @Test func theWatchedAdapterGoesAndComesBack() throws {
        var presence = AdapterPresence(adapter: "hci1")
        func observe(_ hex: String) throws -> AdapterPresence.Change? {
            let event = try #require(try ManagementMessage.presenceEvent(from: Fixture.bytes(hex)))
            return presence.observe(event.observation)
        }
        #expect(try observe("0600 0100 0400 10020000") == .vanished(.adapterDown("hci1")))
        #expect(try observe("0600 0100 0400 11020000") == .returned)
        #expect(try observe("0600 0000 0400 10020000") == nil)
        #expect(try observe("0500 0100 0000") == .vanished(.noAdapter("hci1")))
        #expect(try observe("0400 0100 0000") == .vanished(.adapterDown("hci1")))
        #expect(try observe("0600 0100 0400 11020000") == .returned)
        #expect(try observe("0600 0100 0400 11020000") == nil)
    }

    @Test func readInformationAnswersGiveTheStateAtTheStart() throws {
        let invalidIndex = try ManagementMessage.informationReply(to: 7, from: Fixture.bytes("0200 0700 0300 0400 11"))
        var missing = AdapterPresence(adapter: "hci7")
        #expect(missing.observe(try #require(invalidIndex.observation(index: 7))) == .vanished(.noAdapter("hci7")))
        // Another refusal (0x0d Invalid Parameters) says nothing about presence.
        let refused = try ManagementMessage.informationReply(to: 7, from: Fixture.bytes("0200 0700 0300 0400 0d"))
        #expect(refused.observation(index: 7) == nil)
        var down = AdapterPresence(adapter: "hci7")
        #expect(
            down.observe(try #require(ManagementMessage.InformationReply.settings([]).observation(index: 7)))
                == .vanished(.adapterDown("hci7")))
    }
}
