import HybridCore
import TestSeededRandom
import TestVectorFiles
import Testing

@Suite struct HybridFrameTests {
    @Test func sharedVectors() { VectorFiles.expectAllPass("frame.json") }

    @Test func typeBytesFollowTheSpec() throws {
        // protocol.md §7.3: 00 shutdown, 01 CTAP, 02 update, 03 JSON.
        let expected: [UInt8: HybridMessageType] = [0: .shutdown, 1: .ctap, 2: .update, 3: .json]
        for (byte, type) in expected {
            let frame = try HybridFrame(decoding: [byte, 0xaa], revision: .one)
            #expect(frame.type == type)
            #expect(frame.payload == [0xaa])
        }
        #expect(HybridFrame.shutdown.encoded(revision: .one) == [0x00])
    }

    @Test func invalidFramesGiveTypedErrors() {
        #expect(throws: HybridMessageError.emptyFrame) { try HybridFrame(decoding: [], revision: .one) }
        for byte in UInt8(4)...UInt8(255) {
            #expect(throws: HybridMessageError.unknownMessageType(byte)) {
                try HybridFrame(decoding: [byte], revision: .one)
            }
        }
    }

    @Test func revisionZeroIsBareCTAP() throws {
        let empty = try HybridFrame(decoding: [], revision: .zero)
        #expect(empty == HybridFrame(type: .ctap, payload: []))
        let frame = try HybridFrame(decoding: [0x05, 0x01], revision: .zero)
        #expect(frame.type == .ctap && frame.payload == [0x05, 0x01])
    }

    @Test func randomFramesRoundTrip() throws {
        var random = SeededRandom.forProperty()
        for _ in 0..<500 {
            let frame = HybridFrame(
                type: HybridMessageType.allCases.randomElement(using: &random) ?? .ctap,
                payload: random.bytes(in: 0...100)
            )
            let encoded = frame.encoded(revision: .one)
            #expect(encoded.count == frame.payload.count + 1)
            #expect(try HybridFrame(decoding: encoded, revision: .one) == frame)
            let ctap = HybridFrame(type: .ctap, payload: frame.payload)
            #expect(try HybridFrame(decoding: ctap.encoded(revision: .zero), revision: .zero) == ctap)
        }
    }
}
