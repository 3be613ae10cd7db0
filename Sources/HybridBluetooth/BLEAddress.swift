/// A 48-bit Bluetooth device address.
public struct BLEAddress: Sendable, Hashable, CustomStringConvertible {
    /// The six bytes, most significant first (the order of the `AA:BB:CC:DD:EE:FF` text form).
    public let bytes: [UInt8]

    /// Creates an address from six bytes, most significant first; `nil` for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 6 else { return nil }
        self.bytes = bytes
    }

    /// Creates an address from the little-endian order used in HCI packets.
    /// - Precondition: `littleEndian` has six bytes (callers slice it from a length-checked packet).
    init(littleEndian: some Collection<UInt8>) {
        precondition(littleEndian.count == 6, "a Bluetooth address has six bytes")
        self.bytes = Array(littleEndian.reversed())
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (either case), or `AA_BB_CC_DD_EE_FF` as in BlueZ object paths.
    public init?(string: String) {
        let parts = string.split(separator: ":", omittingEmptySubsequences: false)
        let fields = parts.count == 6 ? parts : string.split(separator: "_", omittingEmptySubsequences: false)
        guard fields.count == 6 else { return nil }
        var bytes: [UInt8] = []
        for field in fields {
            guard field.count == 2, let byte = UInt8(field, radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.bytes = bytes
    }

    /// The bytes in HCI (little-endian) order.
    var littleEndianBytes: [UInt8] { bytes.reversed() }

    /// `AA:BB:CC:DD:EE:FF`.
    public var description: String {
        bytes.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }
}
