import HybridCore
import TestSeededRandom
import TestVectorFiles
import Testing

@Suite struct RevisionZeroPaddingTests {
    /// The whole padding file: crypter32 cases (core-crypto) and the cbor16/cbor8 cases.
    @Test func sharedVectors() { VectorFiles.expectAllPass("padding.json") }

    @Test func invalidPaddingIsTyped() {
        #expect(throws: HybridMessageError.invalidPadding) { try RevisionZeroPadding.unpad([]) }
        #expect(throws: HybridMessageError.invalidPadding) { try RevisionZeroPadding.unpad([0xa0, 0x05]) }
        // A bare map with no trailer at all.
        #expect(throws: HybridMessageError.invalidPadding) { try RevisionZeroPadding.unpad([0xa1, 0x01, 0x02]) }
        // Correct padding around something that is not a map.
        #expect(throws: HybridMessageError.invalidPadding) {
            try RevisionZeroPadding.unpad(RevisionZeroPadding.pad([0x80]))
        }
        #expect(throws: HybridMessageError.invalidPadding) {
            try RevisionZeroPadding.unpad(RevisionZeroPadding.pad([0x01], trailer: .eightBit))
        }
    }

    /// SCHEMA.md §4.15: P = smallest multiple of 512 ≥ len + 2 (or of 256 ≥ len + 1).
    @Test func lengthsFollowTheSchema() {
        #expect(RevisionZeroPadding.pad([UInt8](repeating: 0, count: 510)).count == 512)
        #expect(RevisionZeroPadding.pad([UInt8](repeating: 0, count: 511)).count == 1024)
        #expect(RevisionZeroPadding.pad([UInt8](repeating: 0, count: 255), trailer: .eightBit).count == 256)
        #expect(RevisionZeroPadding.pad([UInt8](repeating: 0, count: 256), trailer: .eightBit).count == 512)
        #expect(RevisionZeroPadding.pad([0xa0]).suffix(2) == [0xfd, 0x01])  // 509 zeros, LE16
        #expect(RevisionZeroPadding.pad([0xa0], trailer: .eightBit).last == 254)
    }

    @Test func randomMapsRoundTripWithTheirOwnTrailer() throws {
        var random = SeededRandom.forProperty()
        for _ in 0..<400 {
            let map = CBOREncoder.encode([1: .bytes(random.bytes(in: 0...1500))])
            for trailer in RevisionZeroPadding.Trailer.allCases {
                let padded = RevisionZeroPadding.pad(map, trailer: trailer)
                #expect(padded.count % trailer.granularity == 0)
                #expect(padded.count >= map.count + trailer.trailerByteCount)
                #expect(padded.count < map.count + trailer.trailerByteCount + trailer.granularity)
                let unpadded = try RevisionZeroPadding.unpad(padded)
                #expect(unpadded.bytes == map)
                #expect(unpadded.trailer == trailer)
            }
        }
    }

    /// Random bytes unpad to a map that re-pads to the same layout, or give a HybridMessageError.
    @Test func randomBytesNeverCrash() {
        var random = SeededRandom.forProperty()
        var tally = ParseTally()
        for _ in 0..<10_000 {
            let bytes = random.bytes(in: 0...40)
            tally.record(
                HybridMessageError.self, { () throws(HybridMessageError) in try RevisionZeroPadding.unpad(bytes) }
            ) {
                #expect($0.map.mapEntries != nil)
                #expect(Array(bytes.prefix($0.bytes.count)) == $0.bytes)
            }
        }
        #expect(tally.errors > 0)
    }
}
