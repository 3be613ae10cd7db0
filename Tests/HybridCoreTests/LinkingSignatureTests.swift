import HybridCore
import TestSeededRandom
import TestVectorFiles
import Testing

@Suite struct LinkingSignatureTests {
    @Test func sharedVectors() { VectorFiles.expectAllPass("linkingSignature.json") }

    @Test func bothSidesComputeTheSameSignature() throws {
        var random = SeededRandom(seed: 0x515)
        for _ in 0..<10 {
            let phone = random.p256Key()
            let client = random.p256Key()
            let hash = random.bytes(32)
            let signature = LinkingSignature.compute(
                privateKey: phone,
                peerPublicKey: client.publicKey,
                handshakeHash: hash
            )
            #expect(signature.count == 32)
            try LinkingSignature.verify(
                signature,
                privateKey: client,
                peerPublicKey: phone.publicKey,
                handshakeHash: hash
            )
        }
    }

    @Test func verificationRejects() {
        var random = SeededRandom(seed: 0x516)
        let phone = random.p256Key()
        let client = random.p256Key()
        let hash = random.bytes(32)
        let signature = LinkingSignature.compute(
            privateKey: phone,
            peerPublicKey: client.publicKey,
            handshakeHash: hash
        )
        let verify = { (candidate: [UInt8], hash: [UInt8]) throws(LinkingSignatureError) in
            try LinkingSignature.verify(
                candidate,
                privateKey: client,
                peerPublicKey: phone.publicKey,
                handshakeHash: hash
            )
        }
        for bit in 0..<256 {
            #expect(throws: LinkingSignatureError.invalidSignature) {
                try verify(flippingBit(bit, of: signature), hash)
            }
        }
        #expect(throws: LinkingSignatureError.invalidSignature) { try verify(Array(signature.prefix(31)), hash) }
        #expect(throws: LinkingSignatureError.invalidSignature) { try verify(signature + [0], hash) }
        #expect(throws: LinkingSignatureError.invalidSignature) { try verify([], hash) }
        #expect(throws: LinkingSignatureError.invalidSignature) { try verify(signature, flippingBit(0, of: hash)) }
        let stranger = random.p256Key()
        #expect(throws: LinkingSignatureError.invalidSignature) {
            try LinkingSignature.verify(
                signature,
                privateKey: client,
                peerPublicKey: stranger.publicKey,
                handshakeHash: hash
            )
        }
    }
}
