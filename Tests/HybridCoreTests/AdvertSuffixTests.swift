import HybridCore
import TestSeededRandom
import TestVectorFiles
import Testing

@Suite struct AdvertSuffixTests {
    @Test func sharedVectors() { VectorFiles.expectAllPass("advertSuffix.json") }

    @Test func invalidSuffixesGiveTypedErrors() {
        #expect(throws: HybridMessageError.cbor(.truncated)) { try AdvertSuffix(decoding: []) }
        #expect(throws: HybridMessageError.cbor(.indefiniteLength)) { try AdvertSuffix(decoding: [0xff, 0x00, 0x13]) }
        #expect(throws: HybridMessageError.notAMap) { try AdvertSuffix(decoding: [0x01]) }
        #expect(throws: HybridMessageError.notAMap) { try AdvertSuffix(decoding: CBOREncoder.encode([1, 130])) }
    }

    @Test func psmMustBeASixteenBitUnsignedInteger() throws {
        #expect(try AdvertSuffix(decoding: CBOREncoder.encode([1: 0xffff])).psm == 0xffff)
        #expect(try AdvertSuffix(decoding: CBOREncoder.encode([1: 0])).psm == 0)
        #expect(try AdvertSuffix(decoding: CBOREncoder.encode([1: 0x10000])).psm == nil)
        #expect(try AdvertSuffix(decoding: CBOREncoder.encode([1: -1])).psm == nil)
        #expect(try AdvertSuffix(decoding: CBOREncoder.encode([1: true])).psm == nil)
        // Key 0 (one Firefox branch) is not the PSM.
        #expect(try AdvertSuffix(decoding: CBOREncoder.encode([0: 130])).psm == nil)
        #expect(try AdvertSuffix(decoding: CBOREncoder.encode([1: 130, 2: "x"])).psm == 130)
    }

    /// protocol.md §3.4: the real Android suffix `a1011882` is `{1: 130}`.
    @Test func encodesLikeAndroid() throws {
        #expect(AdvertSuffix(psm: 130).encoded == (try Hex.decode("a1011882")))
        #expect(AdvertSuffix(psm: nil).encoded == [0xa0])
        var random = SeededRandom.forProperty()
        for _ in 0..<500 {
            let psm = UInt16.random(in: 0...UInt16.max, using: &random)
            #expect(try AdvertSuffix(decoding: AdvertSuffix(psm: psm).encoded).psm == psm)
        }
    }

    /// Random bytes give a suffix whose PSM survives re-encoding, or a HybridMessageError.
    @Test func randomBytesNeverCrash() {
        var random = SeededRandom.forProperty()
        var tally = ParseTally()
        for _ in 0..<10_000 {
            let bytes = random.bytes(in: 0...12)
            tally.record(
                HybridMessageError.self, { () throws(HybridMessageError) in try AdvertSuffix(decoding: bytes) }
            ) {
                #expect((try? AdvertSuffix(decoding: $0.encoded))?.psm == $0.psm, "\(Hex.encode(bytes))")
            }
        }
        #expect(tally.errors > 0)
    }
}
