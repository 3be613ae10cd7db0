import HybridCore
import TestSeededRandom
import TestVectorFiles
import Testing

@Suite struct PostHandshakeMessageTests {
    @Test func sharedVectors() { VectorFiles.expectAllPass("postHandshake.json") }

    static func parse(_ map: CBORValue) throws(HybridMessageError) -> PostHandshakeMessage {
        try PostHandshakeMessage(decoding: CBOREncoder.encode(map))
    }

    @Test func invalidMessagesGiveTypedErrors() {
        #expect(throws: HybridMessageError.cbor(.truncated)) { try PostHandshakeMessage(decoding: []) }
        #expect(throws: HybridMessageError.cbor(.indefiniteLength)) { try PostHandshakeMessage(decoding: [0xff]) }
        #expect(throws: HybridMessageError.notAMap) { try Self.parse([.bytes([1])]) }
        #expect(throws: HybridMessageError.wrongType(key: 3)) { try Self.parse([1: .bytes([0xa0]), 3: "ctap"]) }
        #expect(throws: HybridMessageError.missingKey(1)) { try Self.parse([3: ["ctap"]]) }
        #expect(throws: HybridMessageError.missingKey(1)) { try Self.parse([:]) }
        #expect(throws: HybridMessageError.wrongType(key: 1)) { try Self.parse([1: "getInfo"]) }
        #expect(throws: HybridMessageError.wrongType(key: 2)) { try Self.parse([1: .bytes([0xa0]), 2: .bytes([])]) }
        // Key 3 is checked before key 1, and key 1 before key 2.
        #expect(throws: HybridMessageError.wrongType(key: 3)) { try Self.parse([2: 0, 3: 0]) }
        #expect(throws: HybridMessageError.missingKey(1)) { try Self.parse([2: 0]) }
    }

    @Test func parsingIsLenient() throws {
        let mixed = try Self.parse([1: .bytes([0xa0]), 3: ["zz", 7, "ctap", "dc"], 9: "ignored"])
        #expect(mixed.features == ["zz", "ctap", "dc"])
        #expect(mixed.effectiveFeatures == [.ctap, .digitalCredentials])
        let noFeatures = try Self.parse([3: []])
        #expect(noFeatures.effectiveFeatures.isEmpty && noFeatures.getInfo == nil)
        // Without "ctap", a key 1 of the wrong type is ignored rather than fatal.
        #expect(try Self.parse([1: 5, 3: ["dc"]]).getInfo == nil)
        #expect(try Self.parse([1: .bytes([0xa0])]).effectiveFeatures == [.ctap])
    }

    /// Building synthetic S1's message from its getInfo gives the recorded plaintext
    /// (postHandshake.json `synthetic-s1`: `{1: getInfo, 3: ["ctap"]}`).
    @Test func buildsChromiumPhoneMessage() throws {
        let getInfo = try Hex.decode(
            "a50182684649444f5f325f30684649444f5f325f3102816370726603500000000000000000000000000000000004a262726bf5627576f50983656361626c656668796272696468696e7465726e616c"
        )
        let expected = try Hex.decode("a201584f") + getInfo + Hex.decode("03816463746170")
        #expect(PostHandshakeMessage(getInfo: getInfo).encoded() == expected)
        let iPhone = PostHandshakeMessage(getInfo: getInfo, features: [.digitalCredentials, .ctap, .ctap])
        #expect(iPhone.features == ["ctap", "dc"])
    }

    @Test func randomMessagesRoundTripInBothRevisions() throws {
        var random = SeededRandom.forProperty()
        for _ in 0..<300 {
            let features = HybridFeature.allCases.filter { _ in Bool.random(using: &random) }
            let linking: CBORValue? =
                Bool.random(using: &random) ? [1: .bytes(random.bytes(in: 0...40)), 5: "phone"] : nil
            let getInfo: [UInt8]? =
                features.contains(.ctap) || Bool.random(using: &random) ? random.bytes(in: 0...700) : nil
            let current = PostHandshakeMessage(getInfo: getInfo, features: features, linking: linking)
            let parsed = try PostHandshakeMessage(decoding: current.encoded())
            #expect(parsed == current)
            #expect(parsed.revision == .one)

            let legacy = PostHandshakeMessage(
                getInfo: random.bytes(in: 0...1200), linking: linking, revision: .zero)
            let padded = legacy.encoded()
            #expect(padded.count % 512 == 0)
            let parsedLegacy = try PostHandshakeMessage(decoding: padded)
            #expect(parsedLegacy == legacy)
            #expect(parsedLegacy.revision == .zero && parsedLegacy.features == nil)
            #expect(parsedLegacy.effectiveFeatures == [.ctap])
        }
    }

    /// Random bytes and maps give a message that survives its own encoding, or a HybridMessageError.
    @Test func malformedInputNeverCrashes() {
        var rng = SeededRandom.forProperty()
        var tally = ParseTally()
        let check = { (message: PostHandshakeMessage) in
            #expect((try? PostHandshakeMessage(decoding: message.encoded()))?.cborValue == message.cborValue)
        }
        for _ in 0..<5_000 {
            let bytes = rng.bytes(in: 0...64)
            tally.record(
                HybridMessageError.self, { () throws(HybridMessageError) in try PostHandshakeMessage(decoding: bytes) },
                check: check)
            var entries: [CBORMapEntry] = []
            for key: Int64 in 1...3 where Bool.random(using: &rng) {
                entries.append(CBORMapEntry(.int(key), CBORTests.randomValue(depth: 2, using: &rng)))
            }
            let encoded = CBOREncoder.encode(.map(entries))
            let padded = RevisionZeroPadding.pad(encoded, trailer: Bool.random(using: &rng) ? .sixteenBit : .eightBit)
            tally.record(
                HybridMessageError.self,
                { () throws(HybridMessageError) in try PostHandshakeMessage(decoding: encoded) }, check: check)
            tally.record(
                HybridMessageError.self,
                { () throws(HybridMessageError) in try PostHandshakeMessage(decoding: padded) }, check: check)
        }
        #expect(tally.values > 0 && tally.errors > 0)
    }
}
