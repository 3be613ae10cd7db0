/// One 64-byte CTAPHID report (CTAP 2.2 §11.2.4): an initialization packet (command byte with
/// bit 7 set, 16-bit big-endian payload length, up to 57 payload bytes) or a continuation packet
/// (sequence 0…127, up to 59 payload bytes). Both start with the 4-byte big-endian channel ID.
public enum CTAPHIDPacket: Hashable, Sendable {
    case initialization(channel: UInt32, command: CTAPHIDCommand, length: Int, data: [UInt8])
    case continuation(channel: UInt32, sequence: UInt8, data: [UInt8])

    /// Bytes in every report, both directions.
    public static let reportSize = 64
    /// Payload bytes an initialization packet carries.
    public static let initializationDataSize = reportSize - 7
    /// Payload bytes a continuation packet carries.
    public static let continuationDataSize = reportSize - 5
    /// The largest message: one initialization and 128 continuation packets (7609 bytes).
    public static let maximumMessageLength = initializationDataSize + 128 * continuationDataSize
    /// The broadcast channel, on which only INIT is allowed.
    public static let broadcastChannel: UInt32 = 0xFFFF_FFFF

    /// The channel the packet belongs to.
    public var channel: UInt32 {
        switch self {
        case .initialization(let channel, _, _, _), .continuation(let channel, _, _): channel
        }
    }

    /// Parses one report. `data` keeps all payload bytes of the report (padding included); the
    /// reassembler cuts the message to its announced length.
    /// - Throws: ``CTAPHIDPacketError`` for a report of the wrong size or an announced length
    ///   beyond ``maximumMessageLength``.
    public init(report: some Collection<UInt8>) throws(CTAPHIDPacketError) {
        let bytes = Array(report)
        guard bytes.count == Self.reportSize else { throw .wrongReportSize(bytes.count) }
        let channel = UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
        if bytes[4] & 0x80 != 0 {
            let length = Int(bytes[5]) << 8 | Int(bytes[6])
            guard length <= Self.maximumMessageLength else { throw .lengthTooLarge(channel: channel, length: length) }
            self = .initialization(
                channel: channel, command: CTAPHIDCommand(rawValue: bytes[4]), length: length, data: Array(bytes[7...]))
        } else {
            self = .continuation(channel: channel, sequence: bytes[4], data: Array(bytes[5...]))
        }
    }

    /// The 64-byte report, zero-padded.
    public var report: [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(Self.reportSize)
        bytes += Self.bigEndian(channel)
        switch self {
        case .initialization(_, let command, let length, let data):
            bytes += [
                command.rawValue | 0x80, UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length),
            ]
            bytes += data.prefix(Self.initializationDataSize)
        case .continuation(_, let sequence, let data):
            bytes.append(sequence & 0x7F)
            bytes += data.prefix(Self.continuationDataSize)
        }
        bytes += [UInt8](repeating: 0, count: Self.reportSize - bytes.count)
        return bytes
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }
}

/// Why a report is not a valid CTAPHID packet.
public enum CTAPHIDPacketError: Error, Hashable, Sendable {
    /// A report must be exactly 64 bytes.
    case wrongReportSize(Int)
    /// An initialization packet announced more than 7609 bytes.
    case lengthTooLarge(channel: UInt32, length: Int)
}

/// A whole CTAPHID message: what a request reassembles into and what a response is split from.
public struct CTAPHIDMessage: Hashable, Sendable {
    /// The channel ID the message is sent on (CTAP 2.2 §11.2.4).
    public var channel: UInt32
    /// The command of its initialization packet.
    public var command: CTAPHIDCommand
    /// The reassembled payload (at most ``CTAPHIDPacket/maximumMessageLength`` bytes).
    public var payload: [UInt8]

    /// A message on `channel` with `command` and `payload`.
    public init(channel: UInt32, command: CTAPHIDCommand, payload: [UInt8]) {
        self.channel = channel
        self.command = command
        self.payload = payload
    }

    /// The reports that carry this message: one initialization packet, then continuation packets
    /// with sequence 0, 1, … A payload beyond ``CTAPHIDPacket/maximumMessageLength`` is cut there
    /// (responses are built by us; the bridge never makes one that long).
    public var reports: [[UInt8]] {
        let bytes = payload.prefix(CTAPHIDPacket.maximumMessageLength)
        var reports = [
            CTAPHIDPacket.initialization(
                channel: channel, command: command, length: bytes.count,
                data: Array(bytes.prefix(CTAPHIDPacket.initializationDataSize))
            ).report
        ]
        var offset = bytes.startIndex + min(bytes.count, CTAPHIDPacket.initializationDataSize)
        var sequence: UInt8 = 0
        while offset < bytes.endIndex {
            let end = min(offset + CTAPHIDPacket.continuationDataSize, bytes.endIndex)
            reports.append(
                CTAPHIDPacket.continuation(channel: channel, sequence: sequence, data: Array(bytes[offset..<end]))
                    .report)
            offset = end
            sequence += 1
        }
        return reports
    }
}
