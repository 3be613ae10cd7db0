/// AD structures (Core spec Vol 3 Part C §11, Supplement Part A §1): `length, type, value...` where
/// `length` counts the type byte and the value.
package enum AdvertisingData {
    /// AD type 0x01, Flags.
    static let flagsType: UInt8 = 0x01
    /// AD type 0x03, Complete List of 16-bit Service Class UUIDs.
    static let completeUUID16ListType: UInt8 = 0x03
    /// AD type 0x16, Service Data - 16-bit UUID.
    static let serviceData16Type: UInt8 = 0x16
    /// Flags value: LE General Discoverable Mode (bit 1) | BR/EDR Not Supported (bit 2).
    static let generalDiscoverableLEOnly: UInt8 = 0x06

    /// `02 01 06`.
    static func flags(_ value: UInt8 = generalDiscoverableLEOnly) -> [UInt8] {
        [0x02, flagsType, value]
    }

    /// `03 03 <uuid LE>`.
    static func completeUUID16List(_ uuid16: UInt16) -> [UInt8] {
        [0x03, completeUUID16ListType, UInt8(uuid16 & 0xFF), UInt8(uuid16 >> 8)]
    }

    /// `<3+n> 16 <uuid LE> <data>`; for caBLE's 20 bytes: `17 16 F9 FF <20 bytes>`.
    /// - Precondition: `data.count <= 252` (the length byte holds at most 255).
    static func serviceData16(_ uuid16: UInt16, _ data: [UInt8]) -> [UInt8] {
        precondition(data.count <= 252, "an AD structure holds at most 254 value bytes")
        return [UInt8(3 + data.count), serviceData16Type, UInt8(uuid16 & 0xFF), UInt8(uuid16 >> 8)] + data
    }

    /// Splits advertising data into `(type, value)` pairs.
    ///
    /// A zero length byte ends the significant part (the rest is padding, Core spec Vol 3 Part C §11).
    /// - Throws: ``BluetoothError/malformedReport(_:)`` with `.malformedADStructure` when a structure
    ///   runs past the end of `data`.
    static func structures(in data: [UInt8]) throws -> [(type: UInt8, value: ArraySlice<UInt8>)] {
        var result: [(type: UInt8, value: ArraySlice<UInt8>)] = []
        var index = data.startIndex
        while index < data.endIndex {
            let length = Int(data[index])
            if length == 0 { break }
            let end = index + 1 + length
            guard end <= data.endIndex else { throw BluetoothError.malformedReport(.malformedADStructure) }
            result.append((data[index + 1], data[(index + 2)..<end]))
            index = end
        }
        return result
    }

    /// Every Service Data - 16-bit UUID structure in `data`, in order.
    /// - Throws: ``BluetoothError/malformedReport(_:)`` for a structure that overruns the data, or a
    ///   service-data structure too short to hold its UUID.
    package static func serviceData16(in data: [UInt8]) throws -> [(uuid16: UInt16, data: [UInt8])] {
        try structures(in: data).compactMap { structure in
            guard structure.type == serviceData16Type else { return nil }
            let value = structure.value
            guard value.count >= 2 else { throw BluetoothError.malformedReport(.malformedADStructure) }
            let uuid16 = UInt16(value[value.startIndex]) | UInt16(value[value.startIndex + 1]) << 8
            return (uuid16, Array(value.dropFirst(2)))
        }
    }
}
