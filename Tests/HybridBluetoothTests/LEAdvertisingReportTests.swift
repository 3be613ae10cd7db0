import TestSeededRandom
import Testing

@testable import HybridBluetooth

/// Fixtures laid out by hand from Core spec Vol 4 Part E §7.7.65.2 (LE Advertising Report) and
/// §7.7.65.13 (LE Extended Advertising Report), as complete H4 packets.
@Suite struct LEAdvertisingReportTests {
    /// Our 31-byte advert for the Android EID, as a single legacy ADV_NONCONN_IND report.
    static let legacyEvent = Fixture.bytes(
        "04 3e 2b 02 01"  // event packet, LE Meta, length 43, subevent 0x02, one report
            + " 03 00 665544332211"  // ADV_NONCONN_IND, public, address 11:22:33:44:55:66 (LE on HCI)
            + " 1f 020106 0303f9ff 1716f9ff 5f4397445af32fbc4333d5b71c26c920134e4730"  // 31 bytes of AD
            + " c5"
    )  // RSSI -59 dBm

    static let eventAddress = BLEAddress(string: "11:22:33:44:55:66")!

    @Test func legacyReportYieldsTheServiceData() throws {
        let adverts = try Self.adverts(Self.legacyEvent, uuids: BLEServiceUUID.cable)
        #expect(
            adverts == [
                BLEAdvertisement(
                    address: Self.eventAddress,
                    addressType: .public,
                    uuid16: 0xFFF9,
                    serviceData: Fixture.androidEID,
                    rssi: -59
                )
            ]
        )
    }

    /// Address_Type per §7.7.65.2: 0x02/0x03 are identity addresses the controller resolved.
    @Test func reportAddressTypes() {
        #expect(BLEAddressType(reportAddressType: 0x00) == .public)
        #expect(BLEAddressType(reportAddressType: 0x01) == .random)
        #expect(BLEAddressType(reportAddressType: 0x02) == .public)
        #expect(BLEAddressType(reportAddressType: 0x03) == .random)
        #expect(BLEAddressType(reportAddressType: 0xFF) == nil)
    }

    @Test func uuidFilterApplies() throws {
        #expect(try Self.adverts(Self.legacyEvent, uuids: [0xFDE2]).isEmpty)
    }

    @Test func twoReportsInOneEvent() throws {
        let first = Fixture.bytes("00 01 0a0b0c0d0e0f 05 0416f9ff 77 7f")  // ADV_IND, random, SD fff9 [77], RSSI n/a
        let second = Fixture.bytes("03 00 665544332211 09 0816e2fd 0102030405 d8")  // ADV_NONCONN_IND, SD fde2, -40 dBm
        let parameters = [0x02, 0x02] + first + second
        let packet = [0x04, 0x3E, UInt8(parameters.count)] + parameters
        let adverts = try Self.adverts(packet, uuids: BLEServiceUUID.cable)
        #expect(
            adverts == [
                BLEAdvertisement(
                    address: BLEAddress(string: "0F:0E:0D:0C:0B:0A")!,
                    addressType: .random,
                    uuid16: 0xFFF9,
                    serviceData: [0x77],
                    rssi: nil
                ),
                BLEAdvertisement(
                    address: Self.eventAddress,
                    addressType: .public,
                    uuid16: 0xFDE2,
                    serviceData: [1, 2, 3, 4, 5],
                    rssi: -40
                ),
            ]
        )
    }

    @Test func extendedReportWithLegacyPDU() throws {
        let packet = Fixture.bytes(
            "04 3e 2a 0d 01"  // LE Meta, length 42, subevent 0x0D, one report
                + " 1000 01 665544332211"  // event type: legacy PDU ADV_NONCONN_IND; random address
                + " 01 00 ff 7f b0"  // primary 1M, no secondary, no SID, TX power n/a, RSSI -80
                + " 0000 00 000000000000"  // no periodic interval, no direct address
                + " 10 0f16e2fd 0102030405060708090a0b0c"
        )  // 16 bytes of AD: service data fde2, 12 bytes
        let reports = try Self.reports(packet)
        #expect(reports.count == 1)
        #expect(reports.first?.eventType == 0x0010)
        #expect(reports.first?.addressType == 0x01)
        #expect(reports.first?.isComplete == true)
        #expect(
            try Self.adverts(packet, uuids: BLEServiceUUID.cable) == [
                BLEAdvertisement(
                    address: Self.eventAddress,
                    addressType: .random,
                    uuid16: 0xFDE2,
                    serviceData: Array(1...12),
                    rssi: -80
                )
            ]
        )
    }

    @Test func extendedReportWithExtendedPDUAndLongData() throws {
        let serviceData = [UInt8](repeating: 0x5A, count: 40)
        let data = Fixture.bytes("020106 0303f9ff 2b16f9ff") + serviceData  // 0x2b = 43 = type + UUID + 40 bytes
        // Event type 0x0000: extended non-connectable, complete; public; 1M/2M; SID 3; RSSI -60.
        let report =
            Fixture.bytes("0000 00 665544332211 01 02 03 7f c4 0000 00 000000000000") + [UInt8(data.count)] + data
        let parameters = [0x0D, 0x01] + report
        let packet = [0x04, 0x3E, UInt8(parameters.count)] + parameters
        let adverts = try Self.adverts(packet, uuids: [0xFFF9])
        #expect(
            adverts == [
                BLEAdvertisement(
                    address: Self.eventAddress,
                    addressType: .public,
                    uuid16: 0xFFF9,
                    serviceData: serviceData,
                    rssi: -60
                )
            ]
        )
    }

    @Test func incompleteExtendedFragmentsAreSkipped() throws {
        // Data_Status 01 (bits 5-6 of event type): incomplete, more data to come.
        let packet = Fixture.bytes(
            "04 3e 23 0d 01 2000 00 665544332211 01 01 03 7f c4 0000 00 000000000000 09 0816f9ff 0102030405"
        )
        #expect(try Self.reports(packet).first?.isComplete == false)
        #expect(try Self.adverts(packet, uuids: [0xFFF9]).isEmpty)
    }

    @Test func rssi127MeansNotAvailable() throws {
        var packet = Self.legacyEvent
        packet[packet.count - 1] = 0x7F
        #expect(try Self.adverts(packet, uuids: [0xFFF9]).first?.rssi == nil)
    }

    // MARK: Malformed input: typed errors, never a crash

    @Test func everyTruncationIsATypedError() {
        for length in 0..<Self.legacyEvent.count {
            let prefix = Array(Self.legacyEvent.prefix(length))
            #expect(throws: BluetoothError.self) { try Self.reports(prefix) }
        }
    }

    @Test func reportRunningPastTheEventIsTruncated() {
        // The event header's length matches, but the report's Data_Length claims 0x1f bytes where 0x1e remain.
        var parameters = Array(Self.legacyEvent[3...])
        parameters.removeLast(2)  // drop one AD byte and the RSSI
        parameters.append(0xC5)
        #expect(throws: BluetoothError.malformedReport(.truncated)) {
            try LEAdvertisingReport.parse(subevent: 0x02, parameters: Array(parameters.dropFirst()))
        }
    }

    @Test func zeroReportsIsInvalid() {
        #expect(throws: BluetoothError.malformedReport(.invalidField)) {
            try LEAdvertisingReport.parse(subevent: 0x02, parameters: [0x00])
        }
    }

    @Test func legacyDataOver31BytesIsInvalid() {
        let parameters = Fixture.bytes("01 03 00 665544332211 20") + [UInt8](repeating: 0, count: 32) + [0xC5]
        #expect(throws: BluetoothError.malformedReport(.invalidField)) {
            try LEAdvertisingReport.parse(subevent: 0x02, parameters: parameters)
        }
    }

    @Test func bytesAfterTheLastReportAreRejected() {
        let parameters = Array(Self.legacyEvent[4...]) + [0x00]
        #expect(throws: BluetoothError.malformedReport(.trailingBytes)) {
            try LEAdvertisingReport.parse(subevent: 0x02, parameters: parameters)
        }
    }

    @Test func otherSubeventsAreNotReports() {
        #expect(throws: BluetoothError.malformedReport(.notAnAdvertisingReport)) {
            try LEAdvertisingReport.parse(subevent: 0x01, parameters: Array(Self.legacyEvent[4...]))
        }
    }

    @Test func overrunningADStructureIsMalformed() throws {
        // One legacy report whose AD says "5 bytes follow" but holds 4.
        let packet = Fixture.bytes("04 3e 11 02 01 03 00 665544332211 05 0516f9ff01 c5")
        let report = try #require(try Self.reports(packet).first)
        #expect(throws: BluetoothError.malformedReport(.malformedADStructure)) { try report.adverts(for: [0xFFF9]) }
    }

    @Test func serviceDataTooShortForItsUUIDIsMalformed() {
        #expect(throws: BluetoothError.malformedReport(.malformedADStructure)) {
            try AdvertisingData.serviceData16(in: Fixture.bytes("0216f9"))
        }
    }

    @Test func zeroLengthEndsTheSignificantPart() throws {
        let found = try AdvertisingData.serviceData16(in: Fixture.bytes("0416f9ff01 00 ffffffff"))
        #expect(found.count == 1)
        #expect(found.first?.uuid16 == 0xFFF9)
        #expect(found.first?.data == [0x01])
    }

    @Test func pseudoRandomBytesNeverCrash() {
        let seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        print("LEAdvertisingReportTests.pseudoRandomBytesNeverCrash seed \(seed)")
        var generator = SeededRandom(seed: seed)
        var outcomes = (parsed: 0, refused: 0)
        for _ in 0..<5000 {
            let state = generator.next()
            let length = Int(state >> 58)
            var bytes: [UInt8] = [
                0x04, 0x3E, UInt8(length + 2), (state & 1) == 0 ? 0x02 : 0x0D, UInt8((state >> 8) & 3),
            ]
            for index in 0..<length { bytes.append(UInt8(truncatingIfNeeded: state >> UInt64(index % 56))) }
            do {
                let found = try Self.adverts(bytes, uuids: BLEServiceUUID.cable)
                outcomes.parsed += 1
                #expect(found.allSatisfy { $0.serviceData.count < bytes.count }, "seed \(seed)")
            } catch BluetoothError.malformedReport {
                outcomes.refused += 1
            } catch {
                Issue.record("untyped error \(error), seed \(seed)")
            }
        }
        // Both outcomes happen, so the loop really exercises the parser.
        #expect(outcomes.parsed > 0 && outcomes.refused > 0, "\(outcomes), seed \(seed)")
    }

    // MARK: Helpers

    static func reports(_ packet: [UInt8]) throws -> [LEAdvertisingReport] {
        guard case .leMeta(let subevent, let parameters) = try HCIEvent(packet: packet) else {
            throw BluetoothError.malformedReport(.notAnAdvertisingReport)
        }
        return try LEAdvertisingReport.parse(subevent: subevent, parameters: parameters)
    }

    static func adverts(_ packet: [UInt8], uuids: Set<UInt16>) throws -> [BLEAdvertisement] {
        try reports(packet).flatMap { try $0.adverts(for: uuids) }
    }
}
