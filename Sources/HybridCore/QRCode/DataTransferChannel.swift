/// A data-transfer channel a CTAP 2.3 client offers in QR key 6 (protocol.md §1.3, §3.4).
///
/// Any unsigned value can appear on the wire; the two known ones have names.
public struct DataTransferChannel: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The channel ID as sent.
    public let rawValue: UInt64

    /// A channel by its CTAP 2.3 number (QR key 6); unknown numbers are kept.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// `0`: the cloud-assisted tunnel (WebSocket relay).
    public static let cloudTunnel = DataTransferChannel(rawValue: 0)
    /// `1`: a BLE L2CAP connection-oriented channel.
    public static let bleL2CAP = DataTransferChannel(rawValue: 1)

    /// The channel's name, or its number if unknown.
    public var description: String {
        switch self {
        case .cloudTunnel: return "cloud tunnel"
        case .bleL2CAP: return "BLE L2CAP"
        default: return "channel \(rawValue)"
        }
    }
}
