import Crypto
import HybridCore
import TestSeededRandom
import Testing

@Suite struct UpdateMessageTests {
    static func parse(_ map: CBORValue) throws(HybridMessageError) -> UpdateMessage {
        try UpdateMessage(decoding: CBOREncoder.encode(map))
    }

    @Test func invalidUpdatesGiveTypedErrors() {
        // frame.json `webauthn-rs-update`: a valid frame whose payload is not one CBOR item.
        #expect(throws: HybridMessageError.cbor(.trailingBytes)) {
            try UpdateMessage(decoding: [0x01, 0x02, 0x03, 0x04])
        }
        #expect(throws: HybridMessageError.cbor(.truncated)) { try UpdateMessage(decoding: []) }
        #expect(throws: HybridMessageError.notAMap) { try Self.parse([1]) }
        #expect(throws: HybridMessageError.wrongType(key: 1)) { try Self.parse([1: .bytes([])]) }
    }

    @Test func unknownKeysAndPaddingAreIgnored() throws {
        #expect(try Self.parse([:]).linking == nil)
        let update = try Self.parse([0: .bytes([1, 2, 3]), 1: [1: 2], 7: "x"])
        #expect(update.linking == [1: 2])
    }

    /// protocol.md §7.4: without linking the padded update plaintext is 512 bytes after the crypter's
    /// padding, and the ciphertext 528.
    @Test func chromiumPaddingWithoutLinking() throws {
        let plaintext = UpdateMessage(linking: nil).frame().encoded(revision: .one)
        #expect(plaintext.first == 0x02)
        #expect(TransportPadding.pad(plaintext).count == 512)
        let payload = try CBORDecoder.decode(plaintext.dropFirst())
        #expect(payload[intKey: 0]?.bytesValue?.count == 492)
        #expect(payload[intKey: 1] == nil)
        var crypter = TransportCrypter(readKey: SymmetricKey(size: .bits256), writeKey: SymmetricKey(size: .bits256))
        #expect(try crypter.encrypt(plaintext).count == 528)
    }

    @Test func chromiumPaddingWithRandomLinkingIs512Bytes() throws {
        var random = SeededRandom.forProperty()
        for _ in 0..<50 {
            let linking = LinkingInfoTests.randomLinkingInfo(handshakeHash: random.bytes(32), using: &random).info
            let update = UpdateMessage(linking: linking)
            let plaintext = update.frame().encoded(revision: .one)
            #expect(TransportPadding.pad(plaintext).count == 512)
            let frame = try HybridFrame(decoding: plaintext, revision: .one)
            #expect(frame.type == .update)
            let parsed = try UpdateMessage(decoding: frame.payload)
            #expect(parsed == update)
            let linkingMap = try #require(parsed.linking)
            #expect(try LinkingInfo(cborValue: linkingMap) == linking)
            let unpadded = try UpdateMessage(decoding: update.frame(padded: false).payload)
            #expect(unpadded == update)
        }
    }

    /// Random bytes give an update message or a HybridMessageError.
    @Test func randomBytesNeverCrash() {
        var random = SeededRandom.forProperty()
        var tally = ParseTally()
        for _ in 0..<10_000 {
            let bytes = random.bytes(in: 0...40)
            tally.record(
                HybridMessageError.self, { () throws(HybridMessageError) in try UpdateMessage(decoding: bytes) })
        }
        #expect(tally.errors > 0)
    }
}
