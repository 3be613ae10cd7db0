import HybridCore
import TestSeededRandom
import TestVectorFiles
import Testing

@Suite struct DigitsTests {
    @Test func sharedVectors() { VectorFiles.expectAllPass("digits.json") }

    @Test(arguments: [
        ("12a", DigitEncodingError.nonDigit),
        ("+12", .nonDigit),
        (" 123", .nonDigit),
        ("１２３", .nonDigit),  // full-width digits
        ("1", .invalidLength(1)),
        ("1234", .invalidLength(4)),
        ("000000000000000000", .invalidLength(18)),
        ("256", .chunkOutOfRange),
        ("72057594037927936", .chunkOutOfRange),
        ("00000000000000000" + "99999", .chunkOutOfRange),
    ])
    func invalidDigitsGiveTypedErrors(digits: String, expected: DigitEncodingError) {
        #expect(throws: expected) { try DigitEncoding.decode(digits) }
    }

    @Test func nonDigitIsReportedBeforeLength() {
        // "ab" has a bad length too; the SCHEMA order checks characters first.
        #expect(throws: DigitEncodingError.nonDigit) { try DigitEncoding.decode("ab") }
    }

    @Test func randomBytesRoundTrip() throws {
        var random = SeededRandom(seed: 0xD161_7500)
        let widths = [0, 3, 5, 8, 10, 13, 15]
        for _ in 0..<20 {
            for length in 0...23 {
                let bytes = random.bytes(length)
                let digits = DigitEncoding.encode(bytes)
                #expect(digits.utf8.count == 17 * (length / 7) + widths[length % 7])
                #expect(digits.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
                #expect(try DigitEncoding.decode(digits) == bytes)
            }
        }
    }

    @Test func fullChunkMatchesStandardLibraryDecimal() {
        // Independent reference: the standard library's decimal printing of the LE integer.
        var random = SeededRandom(seed: 7)
        for _ in 0..<100 {
            let bytes = random.bytes(7)
            let value = bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let decimal = String(value)
            let expected = String(repeating: "0", count: 17 - decimal.count) + decimal
            #expect(DigitEncoding.encode(bytes) == expected)
        }
    }
}
