import Crypto
import Foundation
import HybridConformance
import TestSeededRandom
import TestVectorFiles
import Testing

@testable import HybridCore

@Suite struct TransportTests {
    @Test func sharedCrypterVectors() { VectorFiles.expectAllPass("crypter.json") }

    @Test func paddingLengthsAndCount() throws {
        for length in 0...100 {
            let message = [UInt8](repeating: 0xAB, count: length)
            let padded = TransportPadding.pad(message)
            #expect(padded.count % 32 == 0 && padded.count >= length + 1 && padded.count - length <= 32)
            #expect(Int(padded[padded.count - 1]) == padded.count - length - 1)
            #expect(padded[length..<(padded.count - 1)].allSatisfy { $0 == 0 })
            #expect(try TransportPadding.unpad(padded) == message)
        }
    }

    @Test func unpadErrors() throws {
        #expect(throws: TransportError.invalidPadding) { try TransportPadding.unpad([]) }
        #expect(throws: TransportError.invalidPadding) { try TransportPadding.unpad([5]) }
        #expect(throws: TransportError.invalidPadding) { try TransportPadding.unpad([0, 0, 3]) }
        #expect(try TransportPadding.unpad([0]) == [])
        #expect(try TransportPadding.unpad([7, 9, 1]) == [7])  // padding bytes are not checked
    }

    @Test func randomMessagesRoundTrip() throws {
        var random = SeededRandom(seed: 0x7A)
        let keyA = random.symmetricKey()
        let keyB = random.symmetricKey()
        var alice = TransportCrypter(readKey: keyB, writeKey: keyA)
        var bob = TransportCrypter(readKey: keyA, writeKey: keyB)
        for length in 0...529 {
            let message = random.bytes(length)
            let ciphertext = try alice.encrypt(message)
            #expect(ciphertext.count == (length / 32 + 1) * 32 + 16)
            #expect(try bob.decrypt(ciphertext) == message)
            let reply = random.bytes(529 - length)
            #expect(try alice.decrypt(try bob.encrypt(reply)) == reply)
        }
        #expect(alice.writeSequence == 530 && alice.readSequence == 530)
        #expect(bob.writeSequence == 530 && bob.readSequence == 530)
    }

    @Test func flippingAnyBitFailsWithoutAdvancing() throws {
        var random = SeededRandom(seed: 0xB17)
        let key = random.symmetricKey()
        var sender = TransportCrypter(readKey: random.symmetricKey(), writeKey: key)
        var receiver = TransportCrypter(readKey: key, writeKey: random.symmetricKey())
        let ciphertext = try sender.encrypt(random.bytes(40))
        for bit in 0..<(ciphertext.count * 8) {
            #expect(throws: TransportError.authenticationFailed) {
                try receiver.decrypt(flippingBit(bit, of: ciphertext))
            }
        }
        #expect(throws: TransportError.authenticationFailed) { try receiver.decrypt(ciphertext.prefix(15)) }
        #expect(receiver.readSequence == 0)
        _ = try receiver.decrypt(ciphertext)
        #expect(receiver.readSequence == 1)
    }

    @Test func messagesMustArriveInOrder() throws {
        var random = SeededRandom(seed: 0x0D)
        let key = random.symmetricKey()
        var sender = TransportCrypter(readKey: random.symmetricKey(), writeKey: key)
        var receiver = TransportCrypter(readKey: key, writeKey: random.symmetricKey())
        let first = try sender.encrypt([1])
        let second = try sender.encrypt([1])
        #expect(first != second)
        #expect(throws: TransportError.authenticationFailed) { try receiver.decrypt(second) }
        #expect(try receiver.decrypt(first) == [1])
        #expect(throws: TransportError.authenticationFailed) { try receiver.decrypt(first) }  // replay
        #expect(try receiver.decrypt(second) == [1])
    }

    @Test func authenticatedBadPaddingStillAdvances() throws {
        // protocol.md §7.1: the counter advances once the open succeeds, before unpadding.
        var random = SeededRandom(seed: 0x0A)
        let key = random.symmetricKey()
        let emptyPlaintext = AEAD.seal([], key: key, nonce: [UInt8](repeating: 0, count: 12), authenticating: [])
        var receiver = TransportCrypter(readKey: key, writeKey: random.symmetricKey())
        #expect(throws: TransportError.invalidPadding) { try receiver.decrypt(emptyPlaintext) }
        #expect(receiver.readSequence == 1)
    }

    @Test func sequenceLimit() throws {
        var random = SeededRandom(seed: 0x24)
        let key = random.symmetricKey()
        let max = TransportCrypter.maxSequence
        #expect(max == 16_777_215)
        var sender = TransportCrypter(readKey: key, writeKey: key, readSequence: max, writeSequence: max)
        let last = try sender.encrypt([9])
        #expect(sender.writeSequence == max + 1)
        #expect(throws: TransportError.sequenceLimitReached) { try sender.encrypt([9]) }
        #expect(throws: TransportError.sequenceLimitReached) { try sender.encrypt([9]) }  // stays exhausted
        #expect(try sender.decrypt(last) == [9])
        #expect(throws: TransportError.sequenceLimitReached) { try sender.decrypt(last) }
        #expect(throws: TransportError.sequenceLimitReached) {
            try TransportCrypter.seal([], key: key, sequence: max + 1, construction: .new)
        }
        #expect(throws: TransportError.sequenceLimitReached) {
            try TransportCrypter.open(last, key: key, sequence: max + 1, construction: .old)
        }
    }

    /// A crypter that ignores the limit (conformance only: the judge's one message past it, its
    /// broken phone) seals with sequence 2^24 for real: swift-crypto opens it with the nonce
    /// protocol.md §7.1 gives for that number (8 zero bytes || BE32(2^24)); a careless crypter
    /// opens it too, while one that follows the limit refuses it.
    @Test func sealingPastTheLimitUsesTheNextSequenceNumber() throws {
        var random = SeededRandom(seed: 0x25)
        let key = random.symmetricKey()
        let max = TransportCrypter.maxSequence
        var sender = TransportCrypter(readKey: key, writeKey: key, readSequence: max + 1, writeSequence: max + 1)
        #expect(throws: TransportError.sequenceLimitReached) { try sender.encrypt([0x01, 0x04]) }
        sender.enforcesSequenceLimit = false
        let past = try sender.encrypt([0x01, 0x04])
        #expect(sender.writeSequence == max + 2)
        #expect(past.count == 48)
        let nonce: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00, 0x00]
        let box = try AES.GCM.SealedBox(
            nonce: AES.GCM.Nonce(data: nonce), ciphertext: past.prefix(32), tag: past.suffix(16))
        let padded = Array(try AES.GCM.open(box, using: key))
        #expect(padded.prefix(2) == [0x01, 0x04] && padded.last == 29)
        #expect(try sender.decrypt(past) == [0x01, 0x04])  // a careless peer opens it
        var careful = TransportCrypter(readKey: key, writeKey: key, readSequence: max + 1, writeSequence: 0)
        #expect(throws: TransportError.sequenceLimitReached) { try careful.decrypt(past) }
        var atLimit = TransportCrypter(readKey: key, writeKey: key, readSequence: max, writeSequence: 0)
        #expect(throws: TransportError.authenticationFailed) { try atLimit.decrypt(past) }
        // Even a careless crypter stops before its 32-bit counter would wrap and repeat a nonce.
        var end = TransportCrypter(readKey: key, writeKey: key, readSequence: 0, writeSequence: .max - 1)
        end.enforcesSequenceLimit = false
        _ = try end.encrypt([1])
        #expect(throws: TransportError.sequenceLimitReached) { try end.encrypt([1]) }
    }

    @Test func constructionsAreDistinct() throws {
        var random = SeededRandom(seed: 0x01D)
        let key = random.symmetricKey()
        for sequence: UInt32 in [0, 1, 5, 0x01_0000] {
            let message = random.bytes(33)
            let old = try TransportCrypter.seal(message, key: key, sequence: sequence, construction: .old)
            let new = try TransportCrypter.seal(message, key: key, sequence: sequence, construction: .new)
            #expect(old != new)
            #expect(try TransportCrypter.open(old, key: key, sequence: sequence, construction: .old) == message)
            #expect(throws: TransportError.authenticationFailed) {
                try TransportCrypter.open(old, key: key, sequence: sequence, construction: .new)
            }
            #expect(throws: TransportError.authenticationFailed) {
                try TransportCrypter.open(new, key: key, sequence: sequence, construction: .old)
            }
        }
    }

    @Test func statefulCrypterUsesTheNewConstruction() throws {
        var random = SeededRandom(seed: 0x3)
        let key = random.symmetricKey()
        var crypter = TransportCrypter(readKey: key, writeKey: key)
        for sequence: UInt32 in 0..<3 {
            let message = random.bytes(10)
            let ciphertext = try crypter.encrypt(message)
            #expect(try TransportCrypter.open(ciphertext, key: key, sequence: sequence, construction: .new) == message)
        }
    }
}
