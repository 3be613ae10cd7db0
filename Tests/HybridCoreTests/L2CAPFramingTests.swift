import Crypto
import HybridCore
import TestSeededRandom
import Testing

/// The CTAP 2.3 L2CAP framing (protocol.md §3.4, §10.9). Expected bytes follow libwebauthn's
/// `l2cap.rs` tests (the only framing tested against a phone): "hello" → `68 65 6c 6c 6f 0d 0a`.
@Suite struct L2CAPFramingTests {
    @Test func framesWithTrailingCRLF() {
        #expect(L2CAPFraming.frame(Array("hello".utf8)) == [0x68, 0x65, 0x6C, 0x6C, 0x6F, 0x0D, 0x0A])
        #expect(L2CAPFraming.frame([]) == [0x0D, 0x0A])
    }

    @Test func writesAreCutAtTheSendMTU() throws {
        let message = [UInt8](repeating: 0xAB, count: 60)
        let writes = try L2CAPFraming.writes(for: message, sendMTU: 23)
        #expect(writes.map(\.count) == [23, 23, 16])
        #expect(writes.flatMap { $0 } == message + [0x0D, 0x0A])
        #expect(try L2CAPFraming.writes(for: message, sendMTU: 512).map(\.count) == [62])
    }

    @Test func aSendMTUBelowTheLEMinimumIsRefused() {
        // 16 bytes: what a channel reports before it is set up; phones time out on such writes.
        #expect(throws: L2CAPFramingError.sendMTUTooSmall(16)) { try L2CAPFraming.writes(for: [1, 2, 3], sendMTU: 16) }
        #expect(throws: L2CAPFramingError.sendMTUTooSmall(0)) { try L2CAPFraming.writes(for: [1], sendMTU: 0) }
    }

    @Test func messageSplitAcrossReads() throws {
        var deframer = L2CAPMessageDeframer()
        try deframer.append(Array("hel".utf8))
        #expect(deframer.nextMessage() == nil)
        #expect(deframer.bufferedByteCount == 3)
        try deframer.append(Array("lo\r\n".utf8))
        #expect(deframer.nextMessage() == Array("hello".utf8))
        #expect(deframer.bufferedByteCount == 0)
    }

    @Test func severalMessagesInOneRead() throws {
        var deframer = L2CAPMessageDeframer()
        try deframer.append(Array("one\r\ntwo\r\nthr".utf8))
        #expect(deframer.nextMessage() == Array("one".utf8))
        #expect(deframer.nextMessage() == Array("two".utf8))
        #expect(deframer.nextMessage() == nil)
        #expect(deframer.bufferedByteCount == 3)
        #expect(throws: L2CAPFramingError.truncatedMessage(bufferedByteCount: 3)) { try deframer.endOfStream() }
    }

    @Test func emptyMessage() throws {
        var deframer = L2CAPMessageDeframer()
        try deframer.append(Array("\r\nrest".utf8))
        #expect(deframer.nextMessage() == [])
        #expect(deframer.bufferedByteCount == 4)
    }

    @Test func aCRLFSplitBetweenReadsIsFound() throws {
        var deframer = L2CAPMessageDeframer()
        try deframer.append([0x00, 0xFF, 0x0D])
        #expect(deframer.nextMessage() == nil)
        try deframer.append([0x0A])
        #expect(deframer.nextMessage() == [0x00, 0xFF])
        try deframer.endOfStream()
    }

    @Test func everySplitPointGivesTheSameMessages() throws {
        let messages: [[UInt8]] = [[0x01, 0x02, 0x03], [], Array("caBLE".utf8), [0x0D, 0xFF, 0x0A]]
        let stream = messages.flatMap { L2CAPFraming.frame($0) }
        for cut in 0...stream.count {
            var deframer = L2CAPMessageDeframer()
            var got: [[UInt8]] = []
            for part in [stream[..<cut], stream[cut...]] {
                try deframer.append(part)
                while let message = deframer.nextMessage() { got.append(message) }
            }
            #expect(got == messages, "cut at \(cut)")
            try deframer.endOfStream()
        }
    }

    @Test func anOversizedMessageIsATypedError() throws {
        var deframer = L2CAPMessageDeframer(maximumMessageSize: 8)
        try deframer.append([UInt8](repeating: 0x41, count: 8) + [0x0D, 0x0A])  // exactly the limit
        #expect(deframer.nextMessage()?.count == 8)
        #expect(throws: L2CAPFramingError.messageTooLarge(limit: 8)) {
            try deframer.append([UInt8](repeating: 0x41, count: 11))
        }
    }

    @Test func refusedCandidatesAreNotOfferedAgain() throws {
        var deframer = L2CAPMessageDeframer()
        var offered: [[UInt8]] = []
        try deframer.append([0x01, 0x0D, 0x0A, 0x02])
        #expect(
            try deframer.nextMessage(
                expecting: .atLeast(0),
                accepting: {
                    offered.append($0)
                    return $0.count == 4
                }) == nil)
        try deframer.append([0x0D, 0x0A])
        #expect(
            try deframer.nextMessage(
                expecting: .atLeast(0),
                accepting: {
                    offered.append($0)
                    return $0.count == 4
                }) == [0x01, 0x0D, 0x0A, 0x02])
        #expect(offered == [[0x01], [0x01, 0x0D, 0x0A, 0x02]])
    }

    /// Ciphertext that contains `0d 0a`: cutting at the first CRLF (libwebauthn's reader) corrupts
    /// it; offering each CRLF to AES-GCM recovers the whole message.
    @Test func ciphertextContainingCRLFSurvivesWithTrialDecryption() throws {
        var rng = SeededRandom.forProperty()
        let key = rng.symmetricKey()
        var sender = TransportCrypter(readKey: rng.symmetricKey(), writeKey: key)
        let receiver = TransportCrypter(readKey: key, writeKey: rng.symmetricKey())
        var ciphertext: [UInt8] = []
        var plaintext: [UInt8] = []
        repeat {  // about 1 in 200 ciphertexts of this size holds a CRLF
            var probe = sender
            plaintext = rng.bytes(in: 80...200)
            ciphertext = try probe.encrypt(plaintext)
            if Self.containsCRLF(ciphertext) { sender = probe }
        } while !Self.containsCRLF(ciphertext)

        var naive = L2CAPMessageDeframer()
        try naive.append(L2CAPFraming.frame(ciphertext))
        #expect(naive.nextMessage() != ciphertext)

        var deframer = L2CAPMessageDeframer()
        try deframer.append(L2CAPFraming.frame(ciphertext))
        let message = try deframer.nextMessage(
            expecting: .transportFrame,
            accepting: { candidate in
                var trial = receiver
                return (try? trial.decrypt(candidate)) != nil
            })
        #expect(message == ciphertext)
        var opener = receiver
        #expect(try opener.decrypt(try #require(message)) == plaintext)
        try deframer.endOfStream()
    }

    @Test func randomChunkingOfRandomMessages() throws {
        var rng = SeededRandom.forProperty()
        for _ in 0..<50 {
            let messages = (0..<Int.random(in: 1...6, using: &rng)).map { _ in rng.bytes(in: 0...300) }
            let stream = messages.flatMap { L2CAPFraming.frame($0) }
            var deframer = L2CAPMessageDeframer()
            var got: [[UInt8]] = []
            var offset = 0
            while offset < stream.count {
                let end = min(stream.count, offset + Int.random(in: 1...64, using: &rng))
                try deframer.append(stream[offset..<end])
                offset = end
                // Accept a cut only where the expected next message ends: the stand-in for AEAD.
                while let message = try deframer.nextMessage(
                    expecting: .atLeast(0), accepting: { $0 == messages[got.count] })
                {
                    got.append(message)
                }
            }
            #expect(got == messages)
            try deframer.endOfStream()
        }
    }

    private static func containsCRLF(_ bytes: [UInt8]) -> Bool {
        zip(bytes, bytes.dropFirst()).contains { $0 == 0x0D && $1 == 0x0A }
    }
}
