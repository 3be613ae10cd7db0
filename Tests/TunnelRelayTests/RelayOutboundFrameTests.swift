import NIOCore
import NIOEmbedded
import NIOWebSocket
import TestSeededRandom
import Testing

@testable import TunnelRelay

/// The relay's own encoding of forwarded messages, against the examples of RFC 6455 §5.7 and
/// against NIO's unmasking.
@Suite struct RelayOutboundFrameTests {
    /// RFC 6455 §5.7: "Hello" masked with 37 fa 21 3d is 7f 9f 4d 51 58.
    @Test func unmasksTheRFCExample() {
        let masked = ByteBuffer(bytes: [0x7f, 0x9f, 0x4d, 0x51, 0x58])
        var out = ByteBuffer()
        out.writeUnmasked(masked, maskKey: WebSocketMaskingKey([0x37, 0xfa, 0x21, 0x3d]))
        #expect(Array(out.readableBytesView) == Array("Hello".utf8))
    }

    /// RFC 6455 §5.7: a 256-byte binary message is `82 7E 0100` then the bytes; a 64 KiB one is
    /// `82 7F 0000000000010000` then the bytes. 125 bytes is the longest with a 1-byte length.
    @Test(
        arguments: [
            (5, [0x82, 0x05]),
            (125, [0x82, 0x7d]),
            (126, [0x82, 0x7e, 0x00, 0x7e]),
            (256, [0x82, 0x7e, 0x01, 0x00]),
            (65535, [0x82, 0x7e, 0xff, 0xff]),
            (65536, [0x82, 0x7f, 0, 0, 0, 0, 0, 0x01, 0, 0]),
        ] as [(Int, [UInt8])])
    func headerMatchesTheRFC(length: Int, header: [UInt8]) {
        let payload = ByteBuffer(bytes: (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let frame = RelayOutboundFrame.encode(.binary, payload: payload, allocator: ByteBufferAllocator())
        #expect(Array(frame.readableBytesView.prefix(header.count)) == header)
        #expect(Array(frame.readableBytesView.dropFirst(header.count)) == Array(payload.readableBytesView))
    }

    /// Every length from 0 to 100 (the word loop and its tail) and random keys give what NIO's
    /// own byte-by-byte unmasking gives.
    @Test func agreesWithNIOUnmasking() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("RelayOutboundFrameTests.agreesWithNIOUnmasking seed \(seed)")
        var generator = SeededRandom(seed: seed)
        for length in 0...100 {
            let key = WebSocketMaskingKey.random(using: &generator)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // A slice that does not start at the buffer's beginning, as a decoded frame's payload.
            var source = ByteBuffer(bytes: [0xee, 0xee, 0xee] + bytes)
            source.moveReaderIndex(forwardBy: 3)
            var expected = ByteBuffer(bytes: bytes)
            expected.webSocketUnmask(key)
            var out = ByteBuffer()
            out.writeUnmasked(source, maskKey: key)
            #expect(out == expected, "length \(length), seed \(seed)")
        }
    }

    /// RFC 6455 §5.7: an unmasked ping with "Hello" is `89 05` then the bytes; a close frame
    /// carries its opcode 8 the same way.
    @Test func controlFramesCarryTheirOpcode() {
        let allocator = ByteBufferAllocator()
        let ping = RelayOutboundFrame.encode(.ping, payload: ByteBuffer(string: "Hello"), allocator: allocator)
        #expect(Array(ping.readableBytesView) == [0x89, 0x05] + Array("Hello".utf8))
        let close = RelayOutboundFrame.encode(
            .connectionClose, payload: ByteBuffer(bytes: [0x03, 0xe8]), allocator: allocator)
        #expect(Array(close.readableBytesView) == [0x88, 0x02, 0x03, 0xe8])
    }

    /// A message waits for the flush, then reaches the peer's socket as one unmasked frame,
    /// whether or not the peer shares the loop (a peer without a tunnel handler, as here, is
    /// written through its channel either way).
    @Test(arguments: [true, false])
    func linkWritesAnUnmaskedFrameOnFlush(sameLoop: Bool) throws {
        let peer = EmbeddedChannel()
        let link = RelayPeerLink(channel: peer, from: sameLoop ? peer.eventLoop : EmbeddedEventLoop())
        let key = WebSocketMaskingKey([0x37, 0xfa, 0x21, 0x3d])
        link.write(payload: ByteBuffer(bytes: [0x7f, 0x9f, 0x4d, 0x51, 0x58]), maskKey: key)
        #expect(try peer.readOutbound(as: ByteBuffer.self) == nil)
        link.flush()
        var wire = ByteBuffer()
        while var part = try peer.readOutbound(as: ByteBuffer.self) { wire.writeBuffer(&part) }
        #expect(Array(wire.readableBytesView) == [0x82, 0x05] + Array("Hello".utf8))
        _ = try peer.finish()
    }
}
