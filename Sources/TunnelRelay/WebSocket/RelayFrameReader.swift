import NIOCore
import NIOWebSocket

/// One WebSocket frame as a client sent it (RFC 6455 §5.2), its payload still masked.
struct RelayInboundFrame {
    var fin: Bool
    var opcode: WebSocketOpcode
    var maskKey: WebSocketMaskingKey?
    /// The payload as received (masked with ``maskKey``, if there is one).
    var payload: ByteBuffer

    var length: Int { payload.readableBytes }
}

/// Why the relay fails a connection's frame stream; each maps to the close code it sends.
enum RelayFrameError: Error, Equatable {
    /// RSV1–3 set, but no extension was negotiated (RFC 6455 §5.2).
    case reservedBitsSet
    /// A frame longer than the largest message the relay takes.
    case frameTooLarge
    /// A control frame without FIN (RFC 6455 §5.5: control frames are never fragmented).
    case fragmentedControlFrame
    /// A control frame with more than 125 payload bytes (RFC 6455 §5.5).
    case controlFrameTooLong
    /// A continuation frame with no message to continue (RFC 6455 §5.4).
    case continuationWithoutStart
    /// A new data frame while a fragmented message is still open (RFC 6455 §5.4).
    case messageNotFinished
    /// A message split into more than ``RelayMessageAssembler/maxFragments`` frames.
    case tooManyFragments
    /// Fragments adding up to more than the largest message the relay takes.
    case messageTooLarge

    /// What the relay closes the connection with (RFC 6455 §7.4.1).
    var closeCode: RelayCloseCode {
        switch self {
        case .frameTooLarge, .messageTooLarge: .messageTooBig
        default: .protocolError
        }
    }

    /// Whether frames after this one can still be told apart: after a bad header they cannot,
    /// and the relay reads nothing more from the connection.
    var endsTheFrameStream: Bool {
        switch self {
        case .reservedBitsSet, .frameTooLarge, .fragmentedControlFrame, .controlFrameTooLong: true
        case .continuationWithoutStart, .messageNotFinished, .tooManyFragments, .messageTooLarge: false
        }
    }
}

/// Cuts whole frames off the front of the bytes a client sent (RFC 6455 §5.2), with the checks
/// NIO's `WebSocketFrameDecoder` makes, in the relay's read path itself: no pipeline hand-off and
/// no frame object per message. Sans-IO; the payload it returns is a slice of the input.
enum RelayFrameReader {
    /// The next whole frame at the front of `buffer`, which it consumes; `nil` (consuming nothing)
    /// while the frame is incomplete. A frame's header is checked as soon as it has arrived, so a
    /// frame above `maxFrameSize` is refused before its payload is read.
    static func next(from buffer: inout ByteBuffer, maxFrameSize: Int) throws(RelayFrameError) -> RelayInboundFrame? {
        let start = buffer.readerIndex
        guard let first = buffer.getInteger(at: start, as: UInt8.self),
            let second = buffer.getInteger(at: start + 1, as: UInt8.self)
        else { return nil }
        guard first & 0x70 == 0 else { throw .reservedBitsSet }
        let fin = first & 0x80 != 0
        let opcode = first & 0x0F
        let masked = second & 0x80 != 0
        var headerSize = 2
        let length: Int
        switch second & 0x7F {
        case 126:
            guard let word = buffer.getInteger(at: start + 2, as: UInt16.self) else { return nil }
            length = Int(word)
            headerSize += 2
        case 127:
            guard let quad = buffer.getInteger(at: start + 2, as: UInt64.self) else { return nil }
            guard quad <= UInt64(maxFrameSize) else { throw .frameTooLarge }
            length = Int(quad)
            headerSize += 8
        case let short:
            length = Int(short)
        }
        guard length <= maxFrameSize else { throw .frameTooLarge }
        if opcode & 0x08 != 0 {
            guard fin else { throw .fragmentedControlFrame }
            guard length <= 125 else { throw .controlFrameTooLong }
        }
        var maskKey: WebSocketMaskingKey?
        if masked {
            guard let key = buffer.viewBytes(at: start + headerSize, length: 4) else { return nil }
            maskKey = WebSocketMaskingKey(key)
            headerSize += 4
        }
        guard let payload = buffer.getSlice(at: start + headerSize, length: length),
            let opcode = WebSocketOpcode(encodedWebSocketOpcode: opcode)  // four bits: always an opcode
        else { return nil }
        buffer.moveReaderIndex(forwardBy: headerSize + length)
        return RelayInboundFrame(fin: fin, opcode: opcode, maskKey: maskKey, payload: payload)
    }
}
