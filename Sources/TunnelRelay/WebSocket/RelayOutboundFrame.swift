import NIOCore
import NIOWebSocket

/// The bytes of one frame the relay sends (a relayed message, a pong, a ping or a close): a final,
/// unmasked WebSocket frame (RFC 6455 §5.2), header and payload in one buffer, built in one pass
/// (the payload unmasked eight bytes at a time while it is copied).
enum RelayOutboundFrame {
    /// The longest server-to-client header: opcode byte, length byte, 8-byte extended length.
    static let maxHeaderSize = 10

    /// `payload` (masked with `maskKey` if one is given) as a final frame with `opcode`.
    static func encode(
        _ opcode: WebSocketOpcode, payload: ByteBuffer, maskKey: WebSocketMaskingKey? = nil,
        allocator: ByteBufferAllocator
    ) -> ByteBuffer {
        let length = payload.readableBytes
        var buffer = allocator.buffer(capacity: maxHeaderSize + length)
        buffer.writeInteger(0x80 | UInt8(webSocketOpcode: opcode))  // FIN
        switch length {
        case 0...125:
            buffer.writeInteger(UInt8(length))
        case 126...0xFFFF:
            buffer.writeInteger(UInt8(126))
            buffer.writeInteger(UInt16(length))
        default:
            buffer.writeInteger(UInt8(127))
            buffer.writeInteger(UInt64(length))
        }
        buffer.writeUnmasked(payload, maskKey: maskKey)
        return buffer
    }
}

extension ByteBuffer {
    /// Appends `source` XORed with the repeating 4-byte `maskKey` (RFC 6455 §5.3; the same
    /// operation masks and unmasks), eight bytes at a time; appends it unchanged without a key.
    mutating func writeUnmasked(_ source: ByteBuffer, maskKey: WebSocketMaskingKey?) {
        guard let maskKey else {
            writeImmutableBuffer(source)
            return
        }
        let count = source.readableBytes
        let key = (maskKey[0], maskKey[1], maskKey[2], maskKey[3])
        // The key repeated over a word, in memory order, so that byte i of the word meets key[i % 4].
        let word = withUnsafeBytes(of: (key, key)) { $0.loadUnaligned(as: UInt64.self) }
        _ = source.withUnsafeReadableBytes { input in
            writeWithUnsafeMutableBytes(minimumWritableBytes: count) { output in
                var offset = 0
                while offset + 8 <= count {
                    let masked = input.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ word
                    output.storeBytes(of: masked, toByteOffset: offset, as: UInt64.self)
                    offset += 8
                }
                while offset < count {
                    output[offset] = input[offset] ^ maskKey[offset & 3]
                    offset += 1
                }
                return count
            }
        }
    }
}
