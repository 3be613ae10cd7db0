import HybridCore
import Testing

@testable import HybridBluetooth

/// The real Android 16 advert with its CTAP 2.3 suffix (protocol.md §3.4, libwebauthn PR #216 log:
/// `5f4397445af32fbc4333d5b71c26c920134e4730 a1011882` from random address 4C:DD:9C:05:D3:AB),
/// laid out by hand as an LE Extended Advertising Report (Core spec Vol 4 Part E §7.7.65.13), from
/// the raw HCI event to the client's trial decryption.
@Suite struct SuffixedAdvertReportTests {
    /// Event type 0x0001: extended, connectable, complete; random address; 1M/2M; SID 1; RSSI -44.
    static func extendedEvent(serviceData: [UInt8]) -> [UInt8] {
        let data = Fixture.bytes("0303f9ff") + [UInt8(serviceData.count + 3), 0x16, 0xF9, 0xFF] + serviceData
        let report =
            Fixture.bytes("0100 01 abd3059cdd4c 01 02 01 7f d4 0000 00 000000000000") + [UInt8(data.count)] + data
        let parameters = [0x0D, 0x01] + report
        return [0x04, 0x3E, UInt8(parameters.count)] + parameters
    }

    @Test func theAndroidAdvertReachesTrialDecryptionWithItsPSM() throws {
        let packet = Self.extendedEvent(serviceData: Fixture.androidEID + Fixture.androidSuffix)
        let advert = try #require(try LEAdvertisingReportTests.adverts(packet, uuids: BLEServiceUUID.cable).first)
        #expect(advert.address == BLEAddress(string: "4C:DD:9C:05:D3:AB") && advert.addressType == .random)
        #expect(advert.serviceData.count == 24)

        let split = try AdvertServiceData(advert.serviceData)
        #expect(try AdvertSuffix(decoding: split.suffix).psm == 130)
        // Without this phone's QR secret the tag cannot match: the advert got as far as the tag check,
        // which is what "reaches trial decryption" means. A Chromium-strict reader stops at the length.
        let key = QRSecret(bytes: [UInt8](repeating: 0x42, count: 16))!.eidKey
        #expect(throws: AdvertError.authenticationFailed) { try key.decrypt(split.advert) }
        #expect(throws: AdvertError.invalidLength(24)) { try key.decrypt(advert.serviceData) }
    }

    @Test func twentyTwoAndTwentyFourByteServiceDataBothComeThrough() throws {
        for suffix in [Fixture.bytes("a101"), Fixture.androidSuffix] {
            let packet = Self.extendedEvent(serviceData: Fixture.androidEID + suffix)
            let advert = try #require(try LEAdvertisingReportTests.adverts(packet, uuids: BLEServiceUUID.cable).first)
            #expect(advert.serviceData == Fixture.androidEID + suffix)
            #expect(try AdvertServiceData(advert.serviceData).advert == Fixture.androidEID)
        }
    }
}
