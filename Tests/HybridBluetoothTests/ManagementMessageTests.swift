import Testing

@testable import HybridBluetooth

/// Packets laid out as BlueZ's `doc/mgmt-api.txt` defines them: header (Event Code, Controller
/// Index, Parameter Length, little-endian), "Read Controller Information Command" (0x0004) and its
/// return parameters (Address, Bluetooth_Version, Manufacturer, Supported_Settings,
/// Current_Settings, Class_Of_Device, Name[249], Short_Name[11]); Current_Settings bit 0 Powered,
/// bit 9 Low Energy.
@Suite struct ManagementMessageTests {
    /// A Command Complete for Read Controller Information on `index` with these settings.
    private func readInformationComplete(index: UInt16, status: UInt8 = 0, current: String) -> [UInt8] {
        let returned =
            Fixture.bytes("0400") + [status]
            + Fixture.bytes("665544332211 09 0200 ffff0100") + Fixture.bytes(current)
            + Fixture.bytes("000000") + [UInt8](repeating: 0, count: 249 + 11)
        let length = UInt16(returned.count)
        return Fixture.bytes("0100") + [
            UInt8(index & 0xFF), UInt8(index >> 8), UInt8(length & 0xFF), UInt8(length >> 8),
        ]
            + returned
    }

    @Test func theCommandIsCodeIndexAndNoParameters() {
        #expect(ManagementMessage.readInformation(index: 1) == Fixture.bytes("0400 0100 0000"))
        #expect(ManagementMessage.readInformation(index: 0x0102) == Fixture.bytes("0400 0201 0000"))
    }

    @Test func currentSettingsSayWhetherLowEnergyIsOn() throws {
        // btmgmt's "current settings: powered bondable le" (bits 0, 4, 9) and "powered bondable".
        let on = try ManagementMessage.informationReply(
            to: 1, from: readInformationComplete(index: 1, current: "11020000"))
        #expect(on == .settings(ManagementSettings(rawValue: 0x211)))
        guard case .settings(let settings) = on else { return }
        #expect(settings.contains(.lowEnergy) && settings.contains(.powered))

        let off = try ManagementMessage.informationReply(
            to: 1, from: readInformationComplete(index: 1, current: "11000000"))
        guard case .settings(let without) = off else {
            Issue.record("no settings in \(off)")
            return
        }
        #expect(!without.contains(.lowEnergy))
    }

    @Test func answersForAnotherControllerOrCommandAreNotOurs() throws {
        #expect(
            try ManagementMessage.informationReply(to: 0, from: readInformationComplete(index: 1, current: "11020000"))
                == .unrelated)
        // Command Complete for Read Management Version (0x0001): version 1, revision 22.
        #expect(
            try ManagementMessage.informationReply(to: 0xFFFF, from: Fixture.bytes("0100 ffff 0600 0100 00 01 1600"))
                == .unrelated)
        // Index Added (0x0004), an unsolicited event with no parameters.
        #expect(try ManagementMessage.informationReply(to: 2, from: Fixture.bytes("0400 0200 0000")) == .unrelated)
    }

    @Test func refusalsCarryTheirStatus() throws {
        // Command Status, Invalid Index (0x11): no controller 7.
        #expect(
            try ManagementMessage.informationReply(to: 7, from: Fixture.bytes("0200 0700 0300 0400 11"))
                == .failed(status: 0x11))
    }

    @Test func shortPacketsAreTypedErrors() {
        #expect(throws: BluetoothError.malformedReport(.truncated)) {
            try ManagementMessage.informationReply(to: 0, from: Fixture.bytes("0100 00"))
        }
        // The header promises 280 bytes; 10 arrive.
        #expect(throws: BluetoothError.malformedReport(.truncated)) {
            try ManagementMessage.informationReply(to: 0, from: Fixture.bytes("0100 0000 1801 0400 00 6655443322"))
        }
        // A complete answer too short to hold Current_Settings.
        #expect(throws: BluetoothError.malformedReport(.truncated)) {
            try ManagementMessage.informationReply(to: 0, from: Fixture.bytes("0100 0000 0800 0400 00 6655443322"))
        }
    }
}
