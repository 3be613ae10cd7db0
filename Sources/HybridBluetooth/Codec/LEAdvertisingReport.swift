/// One report from an LE Advertising Report (subevent 0x02) or LE Extended Advertising Report
/// (subevent 0x0D) event, Core spec Vol 4 Part E §7.7.65.2 and §7.7.65.13.
///
/// Arrayed parameters are laid out report by report (all fields of report 0, then report 1, ...),
/// as Core spec Vol 4 Part E §5.2 specifies and as the Linux kernel reads them.
package struct LEAdvertisingReport: Equatable {
    static let legacySubevent: UInt8 = 0x02
    static let extendedSubevent: UInt8 = 0x0D

    /// Event_Type: 1 byte for legacy (0x03 = ADV_NONCONN_IND), 2 bytes for extended.
    var eventType: UInt16
    var addressType: UInt8
    var address: BLEAddress
    /// The AD structures.
    package var data: [UInt8]
    /// dBm; `nil` when the controller reports 127 ("not available").
    var rssi: Int8?
    /// Extended reports: `false` when Data_Status (event type bits 5-6) says more data follows or the
    /// data was truncated. Legacy reports are always complete.
    var isComplete: Bool

    /// Parses the parameters of an LE Meta event (after the subevent code).
    /// - Throws: ``BluetoothError/malformedReport(_:)``: `.notAnAdvertisingReport` for another
    ///   subevent, `.truncated` when a report runs past the end, `.invalidField` for a zero report
    ///   count or a legacy data length over 31, `.trailingBytes` when bytes remain after the last report.
    package static func parse(subevent: UInt8, parameters: [UInt8]) throws -> [LEAdvertisingReport] {
        var reader = ByteReader(parameters)
        let count = try reader.byte()
        guard count > 0 else { throw BluetoothError.malformedReport(.invalidField) }
        var reports: [LEAdvertisingReport] = []
        for _ in 0..<count {
            switch subevent {
            case legacySubevent: reports.append(try parseLegacy(&reader))
            case extendedSubevent: reports.append(try parseExtended(&reader))
            default: throw BluetoothError.malformedReport(.notAnAdvertisingReport)
            }
        }
        guard reader.isAtEnd else { throw BluetoothError.malformedReport(.trailingBytes) }
        return reports
    }

    /// Event_Type (1), Address_Type (1), Address (6), Data_Length (1), Data, RSSI (1).
    private static func parseLegacy(_ reader: inout ByteReader) throws -> LEAdvertisingReport {
        let eventType = UInt16(try reader.byte())
        let addressType = try reader.byte()
        let address = BLEAddress(littleEndian: try reader.bytes(6))
        let length = Int(try reader.byte())
        guard length <= AdvertisingDataLayout.legacyMaximum else { throw BluetoothError.malformedReport(.invalidField) }
        let data = try reader.bytes(length)
        let rssi = Int8(bitPattern: try reader.byte())
        return LEAdvertisingReport(
            eventType: eventType,
            addressType: addressType,
            address: address,
            data: data,
            rssi: rssi == 127 ? nil : rssi,
            isComplete: true
        )
    }

    /// Event_Type (2), Address_Type (1), Address (6), Primary_PHY (1), Secondary_PHY (1),
    /// Advertising_SID (1), TX_Power (1), RSSI (1), Periodic_Advertising_Interval (2),
    /// Direct_Address_Type (1), Direct_Address (6), Data_Length (1), Data.
    private static func parseExtended(_ reader: inout ByteReader) throws -> LEAdvertisingReport {
        let eventType = try reader.uint16()
        let addressType = try reader.byte()
        let address = BLEAddress(littleEndian: try reader.bytes(6))
        _ = try reader.bytes(4)  // primary PHY, secondary PHY, SID, TX power
        let rssi = Int8(bitPattern: try reader.byte())
        _ = try reader.bytes(9)  // periodic interval, direct address type and address
        let length = Int(try reader.byte())
        let data = try reader.bytes(length)
        let dataStatus = (eventType >> 5) & 0x3
        return LEAdvertisingReport(
            eventType: eventType,
            addressType: addressType,
            address: address,
            data: data,
            rssi: rssi == 127 ? nil : rssi,
            isComplete: dataStatus == 0
        )
    }
}

/// A bounds-checked cursor over untrusted bytes: every read throws `.truncated` instead of trapping.
struct ByteReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { index == bytes.count }

    mutating func byte() throws -> UInt8 {
        guard index < bytes.count else { throw BluetoothError.malformedReport(.truncated) }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func uint16() throws -> UInt16 {
        let low = try byte()
        return UInt16(low) | UInt16(try byte()) << 8
    }

    mutating func bytes(_ count: Int) throws -> [UInt8] {
        guard count <= bytes.count - index else { throw BluetoothError.malformedReport(.truncated) }
        defer { index += count }
        return Array(bytes[index..<index + count])
    }
}
