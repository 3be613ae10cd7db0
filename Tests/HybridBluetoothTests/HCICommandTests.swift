import Testing

@testable import HybridBluetooth

/// Expected packets written by hand from Core spec Vol 4 Part E §7.8; the first three are also the
/// exact `hcitool cmd` lines that blevm's NOTES.md shows working against btvirt.
@Suite struct HCICommandTests {
    @Test func legacyAdvertisingParametersAreNonConnectableAt100ms() {
        let interval = UInt16(HCICommand.intervalUnits(milliseconds: 100))
        #expect(
            HCICommand.leSetAdvertisingParameters(intervalUnits: interval, ownAddressType: .public).packet
                == Fixture.bytes("01 0620 0f a000 a000 03 00 00 000000000000 07 00")
        )
        // Own_Address_Type 0x01: the address set by LE Set Random Address.
        #expect(
            HCICommand.leSetAdvertisingParameters(intervalUnits: interval, ownAddressType: .random).packet
                == Fixture.bytes("01 0620 0f a000 a000 03 01 00 000000000000 07 00")
        )
    }

    @Test func aConnectableAdvertIsADV_INDOrAConnectableExtendedPDU() throws {
        let interval = UInt16(HCICommand.intervalUnits(milliseconds: 100))
        // Advertising_Type 0x00: ADV_IND, connectable and scannable undirected (§7.8.5).
        #expect(
            HCICommand.leSetAdvertisingParameters(intervalUnits: interval, ownAddressType: .random, connectable: true)
                .packet == Fixture.bytes("01 0620 0f a000 a000 00 01 00 000000000000 07 00")
        )
        // Advertising_Event_Properties (§7.8.53): bit 0 connectable, no legacy bit, not scannable.
        let layout = try AdvertisingDataLayout(
            BLEServiceDataAdvert(serviceData: Fixture.androidEID + [0xA1, 0x01, 0x18, 0x82], connectable: true))
        #expect(HCICommand.ExtendedProperties.of(layout, connectable: true) == 0x0001)
        #expect(HCICommand.ExtendedProperties.of(layout, connectable: false) == 0x0010)
        let parameters = HCICommand.leSetExtendedAdvertisingParameters(
            handle: 0x0A, properties: HCICommand.ExtendedProperties.of(layout, connectable: true), intervalUnits: 0xA0,
            ownAddressType: .random)
        #expect(
            parameters.packet
                == Fixture.bytes("01 3620 19 0a 0100 a00000 a00000 07 01 00 000000000000 00 7f 01 00 01 00 00")
        )
        // Flags stay in (a connectable advert needs them): 02 01 06, then 1b 16 f9 ff + 24 bytes = 31.
        #expect(layout.data.prefix(3) == [0x02, 0x01, 0x06])
        #expect(layout.data.count == 31)
    }

    @Test func randomAddressCommandsCarryTheAddressLittleEndian() throws {
        let address = try #require(BLEAddress(string: "01:23:45:67:89:AB"))
        // LE Set Random Address (OGF 0x08, OCF 0x0005, §7.8.4): six address bytes, least significant first.
        #expect(HCICommand.leSetRandomAddress(address).packet == Fixture.bytes("01 0520 06 ab8967452301"))
        // LE Set Advertising Set Random Address (OCF 0x0035, §7.8.52): handle, then the address.
        #expect(
            HCICommand.leSetAdvertisingSetRandomAddress(handle: 0x0A, address).packet
                == Fixture.bytes("01 3520 07 0a ab8967452301")
        )
    }

    @Test func legacyAdvertisingDataIsPaddedTo31Bytes() {
        let ad = Fixture.bytes("020106 1716f9ff") + Fixture.androidEID
        #expect(
            HCICommand.leSetAdvertisingData(ad).packet
                == Fixture.bytes("01 0820 20 1b 020106 1716f9ff") + Fixture.androidEID + [0, 0, 0, 0]
        )
    }

    @Test func legacyEnableAndScan() {
        #expect(HCICommand.leSetAdvertisingEnable(true).packet == Fixture.bytes("01 0a20 01 01"))
        #expect(HCICommand.leSetAdvertisingEnable(false).packet == Fixture.bytes("01 0a20 01 00"))
        #expect(HCICommand.leSetScanParameters().packet == Fixture.bytes("01 0b20 07 00 1000 1000 00 00"))
        #expect(HCICommand.leSetScanEnable(true).packet == Fixture.bytes("01 0c20 02 01 00"))
    }

    @Test func extendedAdvertisingCommands() {
        let parameters = HCICommand.leSetExtendedAdvertisingParameters(
            handle: 0x0A,
            properties: HCICommand.ExtendedProperties.legacyNonConnectable,
            intervalUnits: 0xA0,
            ownAddressType: .random
        )
        #expect(
            parameters.packet
                == Fixture.bytes("01 3620 19 0a 1000 a00000 a00000 07 01 00 000000000000 00 7f 01 00 01 00 00")
        )
        #expect(
            HCICommand.leSetExtendedAdvertisingData(handle: 0x0A, [0x02, 0x01, 0x06]).packet
                == Fixture.bytes("01 3720 07 0a 03 01 03 020106")
        )
        #expect(
            HCICommand.leSetExtendedAdvertisingEnable(true, handle: 0x0A).packet
                == Fixture.bytes("01 3920 06 01 01 0a 0000 00")
        )
        #expect(HCICommand.leRemoveAdvertisingSet(handle: 0x0A).packet == Fixture.bytes("01 3c20 01 0a"))
    }

    @Test func extendedScanCommands() {
        #expect(HCICommand.leSetExtendedScanParameters().packet == Fixture.bytes("01 4120 08 00 00 01 00 1000 1000"))
        #expect(HCICommand.leSetExtendedScanEnable(true).packet == Fixture.bytes("01 4220 06 01 00 0000 0000"))
    }

    @Test func intervalUnitsAre625Microseconds() {
        #expect(HCICommand.intervalUnits(milliseconds: 20) == 0x0020)
        #expect(HCICommand.intervalUnits(milliseconds: 100) == 0x00A0)
        #expect(HCICommand.intervalUnits(milliseconds: 10_240) == 0x4000)
    }

    /// Core spec Vol 4 Part E §7.1.6: OGF 0x01, OCF 0x0006, Connection_Handle (12 bits, LE),
    /// Reason; btmon decodes the same bytes as "Disconnect (0x01|0x0006) plen 3 … Reason: Remote
    /// User Terminated Connection (0x13)".
    @Test func disconnectEndsOneLinkAsTheUserWouldWithNoFlagBits() {
        #expect(HCICommand.disconnect(handle: 0x002B).packet == Fixture.bytes("01 0604 03 2b00 13"))
        #expect(HCICommand.disconnect(handle: 0x0EFF).packet == Fixture.bytes("01 0604 03 ff0e 13"))
        // The handle's top four bits are packet flags on ACL, never part of a handle.
        #expect(HCICommand.disconnect(handle: 0xF02B).packet == Fixture.bytes("01 0604 03 2b00 13"))
    }
}
