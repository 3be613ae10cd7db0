import Testing

@testable import hybrid_client

/// Firefox's native messaging framing (MDN, "Native messaging", App side): a 32-bit length in
/// native byte order, then UTF-8 JSON; the browser takes at most 1 MB a message.
@Suite struct NativeMessageFramingTests {
    /// The bytes MDN's example host (Python: struct.pack('@I', len)) writes for `"ping"` on this
    /// (little-endian) machine.
    @Test func frameIsNativeLengthThenBytes() throws {
        let json = Array(#""ping""#.utf8)
        #expect(try NativeMessageFraming.frame(json) == [6, 0, 0, 0] + json)
        #expect(try NativeMessageFraming.frame([]) == [0, 0, 0, 0])
    }

    @Test func answersAboveOneMegabyteAreRefused() throws {
        let limit = 1024 * 1024
        #expect(try NativeMessageFraming.frame([UInt8](repeating: 0x20, count: limit)).count == limit + 4)
        #expect(throws: NativeMessageFramingError.outgoingTooLarge(size: limit + 1, limit: limit)) {
            try NativeMessageFraming.frame([UInt8](repeating: 0x20, count: limit + 1))
        }
    }

    /// The same stream, fed whole, one byte at a time and in chunks of 5, gives the same messages
    /// (swift-nio's ByteToMessageDecoderVerifier idea).
    @Test func messagesAreTheSameHoweverTheBytesArrive() throws {
        let messages = [Array(#"{"type":"hello"}"#.utf8), [], Array(#"{"a":"é"}"#.utf8)]
        let stream = try messages.flatMap { try NativeMessageFraming.frame($0) }
        for chunk in [stream.count, 1, 5] {
            var decoder = NativeMessageFrameDecoder()
            var decoded: [[UInt8]] = []
            var offset = 0
            while offset < stream.count {
                decoder.append(stream[offset..<min(offset + chunk, stream.count)])
                offset += chunk
                while let message = try decoder.next() { decoded.append(message) }
            }
            #expect(decoded == messages, "chunk size \(chunk)")
            #expect(!decoder.hasPartialMessage)
        }
    }

    /// A message above the limit is refused once, its body skipped as it arrives, and the next
    /// message still reads.
    @Test func oversizedMessageIsSkippedAndDecodingGoesOn() throws {
        let size = 1024 * 1024 + 1
        var decoder = NativeMessageFrameDecoder()
        decoder.append(withUnsafeBytes(of: UInt32(size)) { Array($0) })
        #expect(Self.refusal(&decoder) == .incomingTooLarge(size: UInt32(size), limit: 1024 * 1024))
        decoder.append([UInt8](repeating: 0x41, count: size - 10))
        let none = try decoder.next()
        #expect(none == nil)
        decoder.append([UInt8](repeating: 0x41, count: 10) + (try NativeMessageFraming.frame(Array("{}".utf8))))
        let next = try decoder.next()
        #expect(next == Array("{}".utf8))
        // 4 GB announced (what Firefox could send at most): refused, not allocated.
        decoder.append([0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Self.refusal(&decoder) == .incomingTooLarge(size: UInt32.max, limit: 1024 * 1024))
    }

    static func refusal(_ decoder: inout NativeMessageFrameDecoder) -> NativeMessageFramingError? {
        do {
            _ = try decoder.next()
            return nil
        } catch { return error }
    }

    @Test func truncatedMessageIsPartial() throws {
        var decoder = NativeMessageFrameDecoder()
        decoder.append([10, 0, 0, 0, 0x7B])
        let next = try decoder.next()
        #expect(next == nil)
        #expect(decoder.hasPartialMessage)
    }
}
