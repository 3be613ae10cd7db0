import TestSeededRandom
import TestVectorFiles
import Testing

@testable import HybridCore

@Suite struct AdvertTests {
    @Test func sharedEIDVectors() { VectorFiles.expectAllPass("eid.json") }
    @Test func sharedEIDPlaintextVectors() { VectorFiles.expectAllPass("eidPlaintext.json") }

    private func randomPlaintext(_ random: inout SeededRandom) -> AdvertPlaintext {
        var domain = UInt16.random(in: 0...UInt16.max, using: &random)
        if (2...255).contains(domain) { domain = 0 }
        guard let nonce = AdvertNonce(bytes: random.bytes(10)), let routingID = RoutingID(bytes: random.bytes(3)),
            let domainID = TunnelDomainID(rawValue: domain)
        else { preconditionFailure() }
        return AdvertPlaintext(nonce: nonce, routingID: routingID, domainID: domainID)
    }

    private func randomKey(_ random: inout SeededRandom) -> EIDKey {
        guard let key = EIDKey(bytes: random.bytes(64)) else { preconditionFailure() }
        return key
    }

    @Test func randomAdvertsRoundTrip() throws {
        var random = SeededRandom(seed: 0xAD)
        for _ in 0..<200 {
            let key = randomKey(&random)
            let plaintext = randomPlaintext(&random)
            let advert = key.encrypt(plaintext)
            #expect(advert.count == 20)
            #expect(try key.decrypt(advert) == plaintext)
            #expect(key.trialDecrypt(advert) == plaintext)
            #expect(try AdvertPlaintext(bytes: plaintext.bytes) == plaintext)
        }
    }

    @Test func flippingAnyBitOfAnAdvertFails() {
        var random = SeededRandom(seed: 0xF1)
        let key = randomKey(&random)
        let advert = key.encrypt(randomPlaintext(&random))
        for bit in 0..<(advert.count * 8) {
            #expect(throws: AdvertError.authenticationFailed) { try key.decrypt(flippingBit(bit, of: advert)) }
        }
    }

    @Test func anotherKeyDoesNotMatch() {
        var random = SeededRandom(seed: 0x0E)
        let advert = randomKey(&random).encrypt(randomPlaintext(&random))
        let other = randomKey(&random)
        #expect(other.trialDecrypt(advert) == nil)
        #expect(throws: AdvertError.authenticationFailed) { try other.decrypt(advert) }
    }

    @Test func serviceDataMustBeExactly20Bytes() {
        var random = SeededRandom(seed: 20)
        let key = randomKey(&random)
        let advert = key.encrypt(randomPlaintext(&random))
        for length in 0...40 where length != 20 {
            let data = length < 20 ? Array(advert.prefix(length)) : advert + random.bytes(length - 20)
            #expect(throws: AdvertError.invalidLength(length)) { try key.decrypt(data) }
        }
    }

    @Test func authenticAdvertWithBadReservedByteOrDomain() {
        var random = SeededRandom(seed: 0x5E)
        let key = randomKey(&random)
        var block = randomPlaintext(&random).bytes
        block[0] = 0x80
        #expect(throws: AdvertError.reservedByteNonZero(0x80)) { try key.decrypt(key.encrypt(block: block)) }
        block[0] = 0
        for domain: UInt16 in [2, 3, 100, 255] {
            block[14] = UInt8(domain & 0xff)
            block[15] = UInt8(domain >> 8)
            #expect(throws: AdvertError.unassignedDomain(domain)) { try key.decrypt(key.encrypt(block: block)) }
            #expect(key.trialDecrypt(key.encrypt(block: block)) == nil)
            #expect(throws: Never.self) { try key.decryptBlock(key.encrypt(block: block)) }
        }
    }

    @Test func plaintextParserErrors() {
        #expect(throws: AdvertError.invalidLength(15)) { try AdvertPlaintext(bytes: [UInt8](repeating: 0, count: 15)) }
        #expect(throws: AdvertError.invalidLength(17)) { try AdvertPlaintext(bytes: [UInt8](repeating: 0, count: 17)) }
        #expect(throws: AdvertError.reservedByteNonZero(1)) {
            try AdvertPlaintext(bytes: [1] + [UInt8](repeating: 0, count: 15))
        }
        // Reserved byte is checked before the domain.
        #expect(throws: AdvertError.reservedByteNonZero(1)) {
            try AdvertPlaintext(bytes: [1] + [UInt8](repeating: 0, count: 13) + [2, 0])
        }
        #expect(throws: AdvertError.unassignedDomain(0x00ff)) {
            try AdvertPlaintext(bytes: [UInt8](repeating: 0, count: 14) + [0xff, 0x00])
        }
    }

    @Test func plaintextLayout() throws {
        let plaintext = try AdvertPlaintext(bytes: try Hex.decode("00098b736b36a98cb9a42f090a0bff01"))
        #expect(Hex.encode(plaintext.nonce.bytes) == "098b736b36a98cb9a42f")
        #expect(plaintext.routingID.hex == "090A0B")
        #expect(plaintext.domainID.rawValue == 0x01ff)
        #expect(AdvertNonce(bytes: [UInt8](repeating: 0, count: 9)) == nil)
    }

    @Test func serviceDataSplitsTheSuffix() throws {
        // Real Android CTAP 2.3 service data (protocol.md §3.4): suffix {1: 130}.
        let data = try Hex.decode("5f4397445af32fbc4333d5b71c26c920134e4730a1011882")
        let split = try AdvertServiceData(data)
        #expect(Hex.encode(split.advert) == "5f4397445af32fbc4333d5b71c26c920134e4730")
        #expect(Hex.encode(split.suffix) == "a1011882")
        #expect(try AdvertServiceData(data.prefix(20)).suffix.isEmpty)
        #expect(throws: AdvertError.invalidLength(19)) { try AdvertServiceData(data.prefix(19)) }
    }

    @Test func keyDescriptionIsRedacted() {
        var random = SeededRandom(seed: 1)
        #expect("\(randomKey(&random))" == "EIDKey(redacted)")
        #expect(EIDKey(bytes: random.bytes(63)) == nil)
    }
}
