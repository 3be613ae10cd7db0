/// One advert on the simulated air: `"HSA1"`, the sender's 6-byte address (most significant first),
/// the 16-bit UUID (little-endian, as in a Service Data AD structure), then the service data.
enum SimulatedAirDatagram {
    static let magic: [UInt8] = Array("HSA1".utf8)
    static let headerLength = magic.count + 6 + 2

    static func encode(address: BLEAddress, uuid16: UInt16, serviceData: [UInt8]) -> [UInt8] {
        magic + address.bytes + [UInt8(uuid16 & 0xFF), UInt8(uuid16 >> 8)] + serviceData
    }

    /// Decodes a datagram; throws ``BluetoothError/malformedReport(_:)`` for anything else.
    static func decode(_ datagram: [UInt8]) throws -> BLEAdvertisement {
        guard datagram.count >= headerLength else { throw BluetoothError.malformedReport(.truncated) }
        guard datagram.starts(with: magic) else { throw BluetoothError.malformedReport(.notAnAdvertisingReport) }
        let addressStart = magic.count
        guard let address = BLEAddress(bytes: Array(datagram[addressStart..<addressStart + 6])) else {
            throw BluetoothError.malformedReport(.truncated)
        }
        let uuid16 = UInt16(datagram[addressStart + 6]) | UInt16(datagram[addressStart + 7]) << 8
        return BLEAdvertisement(
            address: address,
            uuid16: uuid16,
            serviceData: Array(datagram[headerLength...]),
            rssi: nil
        )
    }
}
