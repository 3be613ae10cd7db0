import Testing

@testable import HybridBluetooth

/// Expected bytes are written out by hand from protocol.md §3.3 and the Core spec AD format.
@Suite struct AdvertisingDataLayoutTests {
    @Test func twentyByteEIDFillsALegacyAdvertExactly() throws {
        let layout = try AdvertisingDataLayout(BLEServiceDataAdvert(serviceData: Fixture.androidEID))
        #expect(!layout.needsExtendedAdvertising)
        #expect(layout.data == Fixture.bytes("020106 0303f9ff 1716f9ff 5f4397445af32fbc4333d5b71c26c920134e4730"))
        #expect(layout.data.count == 31)
    }

    @Test func ctapSuffixDropsTheUUIDListAndStaysLegacy() throws {
        let layout = try AdvertisingDataLayout(
            BLEServiceDataAdvert(serviceData: Fixture.androidEID + Fixture.androidSuffix)
        )
        #expect(!layout.needsExtendedAdvertising)
        #expect(layout.data == Fixture.bytes("020106 1b16f9ff 5f4397445af32fbc4333d5b71c26c920134e4730 a1011882"))
    }

    @Test func legacyUUIDFDE2IsLittleEndian() throws {
        let layout = try AdvertisingDataLayout(BLEServiceDataAdvert(uuid16: 0xFDE2, serviceData: [0xAA]))
        #expect(layout.data == Fixture.bytes("020106 0303e2fd 0416e2fd aa"))
    }

    @Test func twentySevenBytesIsTheLegacyLimit() throws {
        let fits = try AdvertisingDataLayout(BLEServiceDataAdvert(serviceData: [UInt8](repeating: 0x11, count: 27)))
        #expect(!fits.needsExtendedAdvertising)
        #expect(fits.data == [0x1E, 0x16, 0xF9, 0xFF] + [UInt8](repeating: 0x11, count: 27))  // 0x1E = type + UUID + 27
        let tooLong = try AdvertisingDataLayout(BLEServiceDataAdvert(serviceData: [UInt8](repeating: 0x22, count: 28)))
        #expect(tooLong.needsExtendedAdvertising)
        #expect(tooLong.data == Fixture.bytes("020106 0303f9ff 1f16f9ff") + [UInt8](repeating: 0x22, count: 28))
    }

    @Test func extendedLimitIs251Bytes() throws {
        let largest = try AdvertisingDataLayout(BLEServiceDataAdvert(serviceData: [UInt8](repeating: 1, count: 247)))
        #expect(largest.needsExtendedAdvertising)
        #expect(largest.data.count == 251)
        #expect(Array(largest.data.prefix(4)) == [0xFA, 0x16, 0xF9, 0xFF])  // 0xFA = 250 = type + UUID + 247
        #expect(throws: BluetoothError.advertisingDataTooLong(length: 252, maximum: 251)) {
            try AdvertisingDataLayout(BLEServiceDataAdvert(serviceData: [UInt8](repeating: 1, count: 248)))
        }
    }

    @Test func intervalOutsideTheControllerRangeIsRejected() {
        #expect(throws: BluetoothError.invalidInterval(.milliseconds(19))) {
            try BLEServiceDataAdvert(serviceData: [], interval: .milliseconds(19)).validate()
        }
        #expect(throws: BluetoothError.invalidInterval(.milliseconds(10_241))) {
            try BLEServiceDataAdvert(serviceData: [], interval: .milliseconds(10_241)).validate()
        }
        #expect(BLEServiceDataAdvert(serviceData: [], interval: .milliseconds(10_240)).intervalMilliseconds == 10_240)
    }
}
