import HybridCore
import TestSeededRandom
import TestVectorFiles
import Testing

@Suite struct ClientPayloadTests {
    @Test func sharedVectors() { VectorFiles.expectAllPass("clientPayload.json") }

    static func header(_ map: CBORValue) -> String { Hex.encode(CBOREncoder.encode(map), uppercase: true) }
    static let nonce = CBORValue.bytes([UInt8](repeating: 0xc0, count: 16))

    @Test func invalidHeadersGiveTypedErrors() {
        #expect(throws: HybridMessageError.invalidHex) { try ClientPayload(headerValue: "A") }
        #expect(throws: HybridMessageError.invalidHex) { try ClientPayload(headerValue: "ZZ") }
        #expect(throws: HybridMessageError.cbor(.truncated)) { try ClientPayload(headerValue: "") }
        #expect(throws: HybridMessageError.cbor(.trailingBytes)) { try ClientPayload(headerValue: "A000") }
        #expect(throws: HybridMessageError.notAMap) { try ClientPayload(headerValue: "01") }
        #expect(throws: HybridMessageError.missingKey(1)) {
            try ClientPayload(headerValue: Self.header([2: Self.nonce]))
        }
        #expect(throws: HybridMessageError.wrongType(key: 1)) {
            try ClientPayload(headerValue: Self.header([1: 1, 2: Self.nonce]))
        }
        #expect(throws: HybridMessageError.missingKey(2)) {
            try ClientPayload(headerValue: Self.header([1: .bytes([1])]))
        }
        #expect(throws: HybridMessageError.wrongType(key: 2)) {
            try ClientPayload(headerValue: Self.header([1: .bytes([1]), 2: "n"]))
        }
        #expect(throws: HybridMessageError.invalidLength(key: 2, length: 15)) {
            try ClientPayload(headerValue: Self.header([1: .bytes([1]), 2: .bytes([UInt8](repeating: 0, count: 15))]))
        }
        #expect(throws: HybridMessageError.wrongType(key: 3)) {
            try ClientPayload(headerValue: Self.header([1: .bytes([1]), 2: Self.nonce, 3: 1]))
        }
    }

    @Test func oldestAndTestBuildPayloadsParse() throws {
        // The oldest Chromium sent keys 1 and 2 only; a test build added 999 = revision.
        let oldest = try ClientPayload(headerValue: Self.header([1: .bytes([1]), 2: Self.nonce]))
        #expect(oldest.requestType == .getAssertion)
        let withRevision = try ClientPayload(
            headerValue: Self.header([1: .bytes([1]), 2: Self.nonce, 3: "mc", 999: 1]).lowercased())
        #expect(withRevision.requestType == .makeCredential)
    }

    @Test func randomPayloadsRoundTrip() throws {
        var random = SeededRandom.forProperty()
        for _ in 0..<300 {
            let payload = ClientPayload(
                pairingID: random.bytes(in: 0...40), clientNonce: random.bytes(16),
                requestType: HybridRequestType.allCases.randomElement(using: &random) ?? .getAssertion
            )
            let header = payload.headerValue
            #expect(header == header.uppercased())
            #expect(try ClientPayload(headerValue: header) == payload)
        }
    }

    /// Random headers give a payload that re-encodes to a header parsing to the same payload, or a
    /// HybridMessageError.
    @Test func malformedInputNeverCrashes() {
        var random = SeededRandom.forProperty()
        var tally = ParseTally()
        let check = { (payload: ClientPayload) in
            #expect((try? ClientPayload(headerValue: payload.headerValue)) == payload)
        }
        for _ in 0..<5_000 {
            let hex = Hex.encode(random.bytes(in: 0...40))
            tally.record(
                HybridMessageError.self, { () throws(HybridMessageError) in try ClientPayload(headerValue: hex) },
                check: check)
            let text = random.text(in: 0...20)
            tally.record(
                HybridMessageError.self, { () throws(HybridMessageError) in try ClientPayload(headerValue: text) },
                check: check)
        }
        #expect(tally.errors > 0)
    }
}
