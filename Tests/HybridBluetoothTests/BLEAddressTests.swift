import Testing

@testable import HybridBluetooth

@Suite struct BLEAddressTests {
    @Test func parsesColonAndBlueZPathForms() throws {
        let colon = try #require(BLEAddress(string: "c0:ff:ee:00:12:AB"))
        #expect(colon.bytes == [0xC0, 0xFF, 0xEE, 0x00, 0x12, 0xAB])
        #expect(colon.description == "C0:FF:EE:00:12:AB")
        #expect(BLEAddress(string: "C0_FF_EE_00_12_AB") == colon)
    }

    @Test(arguments: [
        "", "C0:FF:EE:00:12", "C0:FF:EE:00:12:AB:01", "C0:FF:EE:00:12:GG", "C0:FF:EE:00:12:ABC", "C0:FF:EE:00_12:AB",
    ])
    func rejectsMalformedText(_ text: String) {
        #expect(BLEAddress(string: text) == nil)
    }

    @Test func hciOrderIsLittleEndian() {
        // Core spec Vol 4 Part E §5.2: multi-octet fields, BD_ADDR included, are little-endian on HCI.
        let address = BLEAddress(littleEndian: [0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
        #expect(address.description == "06:05:04:03:02:01")
        #expect(address.littleEndianBytes == [0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
    }

    @Test func byteInitializerChecksLength() {
        #expect(BLEAddress(bytes: [1, 2, 3, 4, 5]) == nil)
        #expect(BLEAddress(bytes: [1, 2, 3, 4, 5, 6])?.description == "01:02:03:04:05:06")
    }
}
