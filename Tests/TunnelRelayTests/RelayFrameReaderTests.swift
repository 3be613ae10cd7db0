import NIOCore
import NIOEmbedded
import NIOWebSocket
import TestSeededRandom
import Testing

@testable import TunnelRelay

/// The relay's frame parsing against the examples of RFC 6455 §5.7, against NIO's own WebSocket
/// encoder, and at every split of the input.
@Suite struct RelayFrameReaderTests {
    static let maxFrameSize = 1 << 20

    static func frames(_ bytes: [UInt8], maxFrameSize: Int = maxFrameSize) throws(RelayFrameError)
        -> [RelayInboundFrame]
    {
        var buffer = ByteBuffer(bytes: bytes)
        var frames: [RelayInboundFrame] = []
        while let frame = try RelayFrameReader.next(from: &buffer, maxFrameSize: maxFrameSize) { frames.append(frame) }
        #expect(buffer.readableBytes == 0, "bytes left over")
        return frames
    }

    static func unmasked(_ frame: RelayInboundFrame) -> [UInt8] {
        var out = ByteBuffer()
        out.writeUnmasked(frame.payload, maskKey: frame.maskKey)
        return Array(out.readableBytesView)
    }

    /// RFC 6455 §5.7: "A single-frame unmasked text message" and "A single-frame masked text
    /// message", both "Hello".
    @Test func singleFrameMessagesOfTheRFC() throws {
        let unmasked = try Self.frames([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])
        let masked = try Self.frames([0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
        for frames in [unmasked, masked] {
            #expect(frames.count == 1)
            #expect(frames[0].fin && frames[0].opcode == .text)
            #expect(Self.unmasked(frames[0]) == Array("Hello".utf8))
        }
        #expect(unmasked[0].maskKey == nil)
        #expect(masked[0].maskKey == WebSocketMaskingKey([0x37, 0xfa, 0x21, 0x3d]))
    }

    /// RFC 6455 §5.7: "A fragmented unmasked text message" (`01 03 Hel`, `80 02 lo`), reassembled.
    @Test func fragmentedMessageOfTheRFC() throws {
        let frames = try Self.frames([0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f])
        #expect(frames.map(\.fin) == [false, true])
        #expect(frames.map(\.opcode) == [.text, .continuation])
        var assembler = RelayMessageAssembler(maxMessageSize: Self.maxFrameSize)
        #expect(try assembler.take(frames[0]) == nil)
        #expect(assembler.heldBytes == 3)
        let message = try #require(try assembler.take(frames[1]))
        #expect(message.opcode == .text && message.fin)
        #expect(Self.unmasked(message) == Array("Hello".utf8))
        #expect(assembler.heldBytes == 0)
    }

    /// RFC 6455 §5.7: an unmasked ping "Hello", and the 16-bit and 64-bit length forms of a 256-byte
    /// and a 65 536-byte binary message.
    @Test func pingAndExtendedLengthsOfTheRFC() throws {
        let ping = try Self.frames([0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])
        #expect(ping.count == 1 && ping[0].opcode == .ping && Self.unmasked(ping[0]) == Array("Hello".utf8))
        let short = [UInt8](repeating: 0xab, count: 256)
        let medium = try Self.frames([0x82, 0x7e, 0x01, 0x00] + short)
        #expect(medium.count == 1 && medium[0].opcode == .binary && Self.unmasked(medium[0]) == short)
        let long = [UInt8](repeating: 0xcd, count: 65536)
        let large = try Self.frames([0x82, 0x7f, 0, 0, 0, 0, 0, 0x01, 0, 0] + long)
        #expect(large.count == 1 && large[0].length == 65536)
    }

    /// At every split of a masked two-frame stream, the first part yields exactly the frames it
    /// holds whole and consumes nothing of the incomplete one.
    @Test func incompleteFramesConsumeNothing() throws {
        let stream: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58, 0x89, 0x00]
        for split in 0...stream.count {
            var buffer = ByteBuffer(bytes: stream[..<split])
            var count = 0
            while try RelayFrameReader.next(from: &buffer, maxFrameSize: Self.maxFrameSize) != nil { count += 1 }
            let whole = split >= 13 ? 2 : split >= 11 ? 1 : 0
            #expect(count == whole, "split \(split)")
            #expect(buffer.readableBytes == split - (whole == 2 ? 13 : whole == 1 ? 11 : 0), "split \(split)")
        }
    }

    @Test(
        arguments: [
            ([0xc2, 0x00], RelayFrameError.reservedBitsSet),  // RSV1
            ([0xa2, 0x00], RelayFrameError.reservedBitsSet),  // RSV2
            ([0x92, 0x00], RelayFrameError.reservedBitsSet),  // RSV3
            ([0x09, 0x00], RelayFrameError.fragmentedControlFrame),  // ping without FIN
            ([0x89, 0x7e, 0x00, 0x7e], RelayFrameError.controlFrameTooLong),  // 126-byte ping
            ([0x82, 0x7f, 0x80, 0, 0, 0, 0, 0, 0, 0], RelayFrameError.frameTooLarge),  // 2^63: no Int overflow
            ([0x82, 0x7f, 0, 0, 0, 0, 0, 0x10, 0, 1], RelayFrameError.frameTooLarge),  // 1 MiB + 1, header only
        ] as [([UInt8], RelayFrameError)])
    func badHeadersAreRefusedBeforeThePayload(bytes: [UInt8], error: RelayFrameError) {
        #expect(throws: error) { _ = try Self.frames(bytes) }
    }

    @Test func closeCodesOfTheErrors() {
        #expect(RelayFrameError.frameTooLarge.closeCode == .messageTooBig)
        #expect(RelayFrameError.messageTooLarge.closeCode == .messageTooBig)
        #expect(RelayFrameError.reservedBitsSet.closeCode == .protocolError)
        #expect(RelayFrameError.continuationWithoutStart.closeCode == .protocolError)
    }

    @Test func assemblerRefusesWhatRFC6455Section5_4Forbids() throws {
        func frame(_ opcode: WebSocketOpcode, fin: Bool, _ payload: [UInt8] = [1]) -> RelayInboundFrame {
            RelayInboundFrame(fin: fin, opcode: opcode, maskKey: nil, payload: ByteBuffer(bytes: payload))
        }
        var assembler = RelayMessageAssembler(maxMessageSize: 4)
        #expect(throws: RelayFrameError.continuationWithoutStart) {
            try assembler.take(frame(.continuation, fin: true))
        }
        #expect(try assembler.take(frame(.binary, fin: false)) == nil)
        // A control frame between fragments passes through.
        #expect(try assembler.take(frame(.ping, fin: true))?.opcode == .ping)
        #expect(throws: RelayFrameError.messageNotFinished) { try assembler.take(frame(.binary, fin: true)) }
        // After an error the partial message is gone and a new one may start.
        #expect(assembler.heldBytes == 0)
        #expect(try assembler.take(frame(.binary, fin: false, [1, 2, 3])) == nil)
        #expect(throws: RelayFrameError.messageTooLarge) {
            try assembler.take(frame(.continuation, fin: true, [4, 5]))
        }
        var many = RelayMessageAssembler(maxMessageSize: 1 << 20)
        #expect(try many.take(frame(.binary, fin: false)) == nil)
        for _ in 1..<RelayMessageAssembler.maxFragments {
            #expect(try many.take(frame(.continuation, fin: false)) == nil)
        }
        #expect(throws: RelayFrameError.tooManyFragments) { try many.take(frame(.continuation, fin: false)) }
    }

    /// Seeded random frames written by NIO's own encoder (the client side masks them), fed in
    /// random chunks: the relay reads back every frame's FIN, opcode, mask and payload.
    @Test func readsWhatNIOsEncoderWrites() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("RelayFrameReaderTests.readsWhatNIOsEncoderWrites seed \(seed)")
        var generator = SeededRandom(seed: seed)
        let channel = EmbeddedChannel(handler: WebSocketFrameEncoder())
        defer { _ = try? channel.finish() }
        var sent: [WebSocketFrame] = []
        var wire = ByteBuffer()
        for _ in 0..<200 {
            let opcode: WebSocketOpcode = [.binary, .continuation, .ping, .pong, .text].randomElement(
                using: &generator)!
            let control = opcode == .ping || opcode == .pong
            let length =
                control
                ? Int.random(in: 0...125, using: &generator)
                : [Int.random(in: 0...300, using: &generator), Int.random(in: 65_000...70_000, using: &generator)]
                    .randomElement(using: &generator)!
            let payload = ByteBuffer(bytes: (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let key: WebSocketMaskingKey? = Bool.random(using: &generator) ? .random(using: &generator) : nil
            let frame = WebSocketFrame(
                fin: control || Bool.random(using: &generator), opcode: opcode, maskKey: key, data: payload)
            sent.append(frame)
            try channel.writeOutbound(frame)
            while var part = try channel.readOutbound(as: ByteBuffer.self) { wire.writeBuffer(&part) }
        }
        var received: [RelayInboundFrame] = []
        var pending = ByteBuffer()
        while wire.readableBytes > 0 {
            var chunk = wire.readSlice(length: min(wire.readableBytes, Int.random(in: 1...9000, using: &generator)))!
            pending.writeBuffer(&chunk)
            while let frame = try RelayFrameReader.next(from: &pending, maxFrameSize: Self.maxFrameSize) {
                received.append(frame)
            }
        }
        #expect(received.count == sent.count, "seed \(seed)")
        for (frame, expected) in zip(received, sent) {
            #expect(
                frame.fin == expected.fin && frame.opcode == expected.opcode && frame.maskKey == expected.maskKey,
                "seed \(seed)")
            // The encoder masks the data it is given with the key; the reader's unmasking undoes it.
            #expect(Self.unmasked(frame) == Array(expected.data.readableBytesView), "seed \(seed)")
        }
    }

    /// Seeded random bytes (biased towards header bytes that matter) never trap: each step gives a
    /// frame whose payload fits what was read, a typed error, or a wait for more bytes.
    @Test func arbitraryBytesGiveFramesOrTypedErrors() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("RelayFrameReaderTests.arbitraryBytesGiveFramesOrTypedErrors seed \(seed)")
        var generator = SeededRandom(seed: seed)
        var outcomes = (frames: 0, errors: 0, waits: 0)
        for _ in 0..<2_000 {
            let interesting: [UInt8] = [
                0x00, 0x01, 0x02, 0x08, 0x09, 0x0a, 0x7d, 0x7e, 0x7f, 0x80, 0x81, 0x82, 0x88, 0xff,
            ]
            let bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in
                Bool.random(using: &generator)
                    ? interesting.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
            }
            var buffer = ByteBuffer(bytes: bytes)
            var assembler = RelayMessageAssembler(maxMessageSize: 100)
            while true {
                let before = buffer.readableBytes
                do {
                    guard let frame = try RelayFrameReader.next(from: &buffer, maxFrameSize: 100) else {
                        outcomes.waits += 1
                        #expect(buffer.readableBytes == before, "seed \(seed)")
                        break
                    }
                    #expect(frame.length <= 100 && before - buffer.readableBytes >= 2 + frame.length, "seed \(seed)")
                    outcomes.frames += 1
                    _ = try assembler.take(frame)
                } catch {
                    outcomes.errors += 1
                    if error.endsTheFrameStream { break }
                }
            }
        }
        #expect(outcomes.frames > 0 && outcomes.errors > 0 && outcomes.waits > 0, "seed \(seed): \(outcomes)")
    }
}
