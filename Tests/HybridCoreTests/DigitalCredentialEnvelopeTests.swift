import HybridCore
import TestVectorFiles
import Testing

/// The JSON envelopes of message type 03 (protocol.md §7.8): the shared vectors (Chromium's
/// `cross_device_request_dispatcher.cc` and its unit test) and the bounds.
@Suite struct DigitalCredentialEnvelopeTests {
    @Test func requestVectors() { VectorFiles.expectAllPass("dcRequest.json") }
    @Test func responseVectors() { VectorFiles.expectAllPass("dcResponse.json") }

    @Test func anEnvelopeOverTheLimitIsRefusedUnread() {
        let limit = DigitalCredentialEnvelopeLimits.maxBytes
        let big = Array(#"{"origin":""#.utf8) + [UInt8](repeating: 0x61, count: limit) + Array(#""}"#.utf8)
        #expect(throws: DigitalCredentialEnvelopeError.tooLarge(size: big.count, limit: limit)) {
            _ = try DigitalCredentialRequestEnvelope(decoding: big)
        }
    }

    @Test func nestingIsBounded() {
        let depth = DigitalCredentialEnvelopeLimits.maxDepth
        let within = [UInt8](repeating: 0x5B, count: depth) + [UInt8](repeating: 0x5D, count: depth)
        #expect(throws: Never.self) { _ = try JSONNode(parsing: within) }
        let beyond = [UInt8](repeating: 0x5B, count: depth + 1) + [UInt8](repeating: 0x5D, count: depth + 1)
        #expect(throws: DigitalCredentialEnvelopeError.tooDeep(limit: depth)) { _ = try JSONNode(parsing: beyond) }
        // Far deeper than the stack could take, had the bound not stopped it first.
        let hostile = [UInt8](repeating: 0x5B, count: 200_000)
        #expect(throws: DigitalCredentialEnvelopeError.tooDeep(limit: depth)) { _ = try JSONNode(parsing: hostile) }
    }

    @Test func invalidUTF8InAStringIsMalformed() {
        let bytes: [UInt8] = Array(#"{"origin":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect(throws: DigitalCredentialEnvelopeError.malformedJSON(offset: 10)) { _ = try JSONNode(parsing: bytes) }
    }

    @Test func escapesAndNonASCIIAsChromiumWritesThem() throws {
        // base/json/string_escape.cc: short escapes, \u003C for '<', U+2028 escaped, other controls
        // as \u00XX, non-ASCII as UTF-8; a surrogate pair read back as one scalar.
        let node = try JSONNode(parsing: Array(#"["a\"\\\/\b\f\n\r\t\u0001<\u2028é\ud83d\ude00"]"#.utf8))
        #expect(
            String(decoding: node.encoded, as: UTF8.self) == #"["a\"\\/\b\f\n\r\t\u0001\u003C\u2028é😀"]"#)
    }

    @Test func aCredentialWhoseDataIsNotJSONIsNotSent() {
        #expect(throws: DigitalCredentialEnvelopeError.malformedJSON(offset: 0)) {
            _ = try DigitalCredentialResponseEnvelope.credential(protocolID: "p", data: Array("vp_token".utf8))
                .encoded()
        }
    }

    @Test func theRefusalIsOneFixedAnswer() throws {
        #expect(
            String(decoding: try DigitalCredentialResponseEnvelope.refusal.encoded(), as: UTF8.self)
                == #"{"response":{"digital":{"error":"USER_CANCELED"}}}"#)
    }
}
