/// The few WebSocket frames the relay checks write and read on a raw connection (RFC 6455 §5.2):
/// masked client frames out, unmasked server frames in.
package enum WebSocketWireFrame {
    package static let binary: UInt8 = 0x2
    package static let close: UInt8 = 0x8
    package static let ping: UInt8 = 0x9
    package static let pong: UInt8 = 0xA

    /// A complete client frame (FIN set, masked with `mask`).
    package static func masked(opcode: UInt8, payload: [UInt8], mask: [UInt8]) -> [UInt8] {
        precondition(mask.count == 4, "a WebSocket mask is 4 bytes")
        var frame: [UInt8] = [0x80 | (opcode & 0x0F)]
        switch payload.count {
        case ..<126:
            frame.append(0x80 | UInt8(payload.count))
        case ..<65_536:
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(payload.count) >> (8 * UInt64($0))) }
        }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    /// A server frame read from the front of a byte stream.
    package struct Parsed: Equatable, Sendable {
        package let fin: Bool
        package let opcode: UInt8
        package let payload: [UInt8]
        /// Bytes of the stream this frame took.
        package let length: Int
    }

    /// Parses the frame at the front of `bytes`; `nil` if more bytes are needed.
    ///
    /// - Throws: ``WebSocketWireFrameError`` for a masked server frame or a length over `maxPayload`.
    package static func parse(_ bytes: [UInt8], maxPayload: Int = 1 << 21) throws(WebSocketWireFrameError) -> Parsed? {
        guard bytes.count >= 2 else { return nil }
        guard bytes[1] & 0x80 == 0 else { throw .maskedServerFrame }
        var offset = 2
        var length = Int(bytes[1] & 0x7F)
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            var value: UInt64 = 0
            for byte in bytes[2..<10] { value = value << 8 | UInt64(byte) }
            guard value <= UInt64(maxPayload) else { throw .tooLong }
            length = Int(value)
            offset = 10
        }
        guard length <= maxPayload else { throw .tooLong }
        guard bytes.count >= offset + length else { return nil }
        return Parsed(
            fin: bytes[0] & 0x80 != 0, opcode: bytes[0] & 0x0F, payload: Array(bytes[offset..<(offset + length)]),
            length: offset + length)
    }
}

/// A server frame the checks cannot accept.
package enum WebSocketWireFrameError: Error, Equatable, Sendable {
    /// Servers must not mask (RFC 6455 §5.1).
    case maskedServerFrame
    /// The payload is longer than the reader allows.
    case tooLong
}
