import Foundation
import HybridConformance
import HybridCore
import TestSeededRandom
import TestVectorFiles
import Testing

@Suite struct CBORTests {
    @Test func sharedVectors() { VectorFiles.expectAllPass("cbor.json") }

    /// The invalid cases of the shared `cbor.json`: their `cborError` and hex bytes.
    static func invalidVectors() throws -> [(detail: String, hex: String)] {
        let file = try JSONValue.parse(try Data(contentsOf: URL(fileURLWithPath: VectorFiles.path("cbor.json"))))
        guard case .object(let object) = file, case .array(let cases)? = object["cases"] else {
            Issue.record("cbor.json unreadable")
            return []
        }
        var vectors: [(detail: String, hex: String)] = []
        for case .object(let testCase) in cases {
            guard case .string(let detail)? = testCase["cborError"], case .string(let hex)? = testCase["cbor"] else {
                continue
            }
            vectors.append((detail, hex))
        }
        return vectors
    }

    /// Every invalid vector is rejected with the specific typed error its `cborError` names.
    @Test func invalidVectorsGiveTheirTypedError() throws {
        let expected: [String: CBORError] = [
            "truncated": .truncated, "trailing": .trailingBytes, "non-minimal": .nonMinimal,
            "indefinite": .indefiniteLength, "reserved-ai": .reservedAdditionalInformation, "tag": .tag,
            "float": .float, "simple": .simpleValue, "unsorted": .unsortedKeys, "duplicate": .duplicateKey,
            "key-type": .invalidKeyType, "utf8": .invalidUTF8, "int-range": .integerOutOfRange,
            "depth": .nestingTooDeep,
        ]
        var checked = 0
        for (detail, hex) in try Self.invalidVectors() {
            let want = try #require(expected[detail], "unknown cborError \(detail)")
            #expect(throws: want, "\(hex)") { try CBORDecoder.decode(try Hex.decode(hex)) }
            checked += 1
        }
        #expect(checked == 44)
    }

    /// The decode for hosts' requests (``CBORDecoder/MapKeyOrder/anyOrder``) forgives key order
    /// only: every other invalid vector still fails with its own error, and the unsorted ones
    /// re-encode to canonical bytes with the same items.
    @Test func anyKeyOrderForgivesOnlyKeyOrder() throws {
        var unsorted = 0
        for (detail, hex) in try Self.invalidVectors() {
            let bytes = try Hex.decode(hex)
            let strictError: CBORError
            do {
                _ = try CBORDecoder.decode(bytes)
                continue
            } catch {
                strictError = error
            }
            if detail == "unsorted" {
                let value = try CBORDecoder.decode(bytes, mapKeys: .anyOrder)
                // Re-encoded: strictly valid, and the same items (same length, only the order moved).
                let canonical = CBOREncoder.encode(value)
                #expect(throws: Never.self, "\(hex)") { try CBORDecoder.decode(canonical) }
                #expect(canonical.count == bytes.count && canonical.sorted() == bytes.sorted(), "\(hex)")
                unsorted += 1
            } else {
                #expect(throws: strictError, "\(hex)") { try CBORDecoder.decode(bytes, mapKeys: .anyOrder) }
            }
        }
        #expect(unsorted > 0)
        // A duplicate key that is not adjacent to its twin (only order-free checking sees it).
        #expect(throws: CBORError.duplicateKey) {
            try CBORDecoder.decode([0xA3, 0x02, 0x00, 0x01, 0x00, 0x02, 0x00], mapKeys: .anyOrder)
        }
    }

    /// Chromium's components/cbor reader accepts byte-string map keys (its phone code needs them for
    /// prf's `evalByCredential`), ordered like every key: major type, then length, then bytewise.
    @Test func byteStringKeysInCanonicalOrder() throws {
        // {h'00': 0, h'0000': 1}, and after the integer key 1 and before the text key "a".
        #expect(
            try CBORDecoder.decode([0xa2, 0x41, 0x00, 0x00, 0x42, 0x00, 0x00, 0x01])
                == .map([CBORMapEntry(.bytes([0]), .int(0)), CBORMapEntry(.bytes([0, 0]), .int(1))]))
        #expect(try CBORDecoder.decode([0xa3, 0x01, 0x00, 0x41, 0x00, 0x00, 0x61, 0x61, 0x00]).mapEntries?.count == 3)
        #expect(throws: CBORError.unsortedKeys) {
            try CBORDecoder.decode([0xa2, 0x42, 0x00, 0x00, 0x00, 0x41, 0x00, 0x01])
        }
        #expect(throws: CBORError.unsortedKeys) { try CBORDecoder.decode([0xa2, 0x61, 0x61, 0x00, 0x41, 0x00, 0x00]) }
        #expect(throws: CBORError.duplicateKey) { try CBORDecoder.decode([0xa2, 0x41, 0x00, 0x00, 0x41, 0x00, 0x01]) }
        #expect(throws: CBORError.invalidKeyType) { try CBORDecoder.decode([0xa1, 0xf5, 0x00]) }
    }

    @Test func rejectsNoncharacters() {
        // U+FFFE encoded as EF BF BE.
        #expect(throws: CBORError.invalidUTF8) { try CBORDecoder.decode([0x63, 0xef, 0xbf, 0xbe]) }
    }

    @Test func hugeDeclaredLengthsFailWithoutAllocating() {
        #expect(throws: CBORError.truncated) {
            try CBORDecoder.decode([0x9b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
        }
        #expect(throws: CBORError.truncated) {
            try CBORDecoder.decode([0xbb, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
        }
        #expect(throws: CBORError.truncated) {
            try CBORDecoder.decode([0x5b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
        }
    }

    @Test func encoderSortsKeysCanonically() {
        let value: CBORValue = ["b": 1, -1: 2, 24: 3, "a": 4, 1000: 5, 0: 6]
        // 0, 24, 1000 (major 0 by length), then -1 (major 1), then "a", "b" (major 3).
        let expected: [UInt8] = [
            0xa6, 0x00, 0x06, 0x18, 0x18, 0x03, 0x19, 0x03, 0xe8, 0x05, 0x20, 0x02,
            0x61, 0x61, 0x04, 0x61, 0x62, 0x01,
        ]
        #expect(CBOREncoder.encode(value) == expected)
    }

    @Test func randomValuesRoundTrip() throws {
        var rng = SeededRandom.forProperty()
        for _ in 0..<500 {
            let value = Self.randomValue(depth: 0, using: &rng)
            let encoded = CBOREncoder.encode(value)
            let decoded = try CBORDecoder.decode(encoded)
            #expect(CBOREncoder.encode(decoded) == encoded)
            #expect(decoded == Self.canonical(value))
        }
    }

    /// Random bytes never crash the decoder; it either decodes canonically or throws a CBORError.
    @Test func randomBytesNeverCrash() {
        var rng = SeededRandom.forProperty()
        var tally = ParseTally()
        for _ in 0..<20_000 {
            let bytes = rng.bytes(in: 0...12)
            tally.record(CBORError.self, { () throws(CBORError) in try CBORDecoder.decode(bytes) }) {
                #expect(CBOREncoder.encode($0) == bytes, "accepted non-canonical \(Hex.encode(bytes))")
            }
        }
        #expect(tally.values > 0 && tally.errors > 0)
    }

    static func randomValue(depth: Int, using rng: inout SeededRandom) -> CBORValue {
        let choice = Int.random(in: 0..<(depth > 4 ? 5 : 7), using: &rng)
        switch choice {
        case 0:
            return .int(Int64.random(in: Int64.min...Int64.max, using: &rng) >> Int64.random(in: 0...63, using: &rng))
        case 1:
            return .bytes((0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        case 2:
            return .text(
                String((0..<Int.random(in: 0...30, using: &rng)).map { _ in "aé水🔑z".randomElement(using: &rng)! }))
        case 3: return .bool(Bool.random(using: &rng))
        case 4: return [.null, .undefined].randomElement(using: &rng)!
        case 5:
            return .array(
                (0..<Int.random(in: 0...5, using: &rng)).map { _ in randomValue(depth: depth + 1, using: &rng) })
        default:
            var entries: [CBORMapEntry] = []
            for _ in 0..<Int.random(in: 0...5, using: &rng) {
                let key: CBORValue =
                    Bool.random(using: &rng)
                    ? .int(Int64.random(in: -300...70_000, using: &rng))
                    : .text(String(Int.random(in: 0...999, using: &rng)))
                if !entries.contains(where: { $0.key == key }) {
                    entries.append(CBORMapEntry(key, randomValue(depth: depth + 1, using: &rng)))
                }
            }
            return .map(entries)
        }
    }

    /// The value with every map's entries in canonical order, as a decoder returns it.
    static func canonical(_ value: CBORValue) -> CBORValue {
        switch value {
        case .array(let elements): return .array(elements.map(canonical))
        case .map(let entries):
            return .map(
                entries.map { CBORMapEntry($0.key, canonical($0.value)) }.sorted {
                    let a = CBOREncoder.encode($0.key)
                    let b = CBOREncoder.encode($1.key)
                    if a.first! >> 5 != b.first! >> 5 { return a.first! >> 5 < b.first! >> 5 }
                    return a.count != b.count ? a.count < b.count : a.lexicographicallyPrecedes(b)
                })
        default: return value
        }
    }
}
