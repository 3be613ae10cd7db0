import NIOCore
import NIOWebSocket

/// The bytes of one relayed message as the peer receives it: a final, unmasked binary WebSocket
/// frame (RFC 6455 §5.2), header and payload in one buffer.
///
/// Building it in one pass replaces what the generic path costs per message: NIO's unmasking
/// (a copy-on-write copy of the received slice, then one non-inlined key lookup per byte), a new
/// `WebSocketFrame`, the encoder's separate header buffer, and a two-buffer `writev`.
enum RelayForwardedFrame {
    /// The longest server-to-client header: opcode byte, length byte, 8-byte extended length.
    static let maxHeaderSize = 10

    /// `payload` (masked with `maskKey` if one is given) as a final binary frame.
    static func binary(payload: ByteBuffer, maskKey: WebSocketMaskingKey?, allocator: ByteBufferAllocator) -> ByteBuffer {
        let length = payload.readableBytes
        var buffer = allocator.buffer(capacity: maxHeaderSize + length)
        buffer.writeInteger(UInt8(0x82))  // FIN, opcode 2 (binary)
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
        source.withUnsafeReadableBytes { input in
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
