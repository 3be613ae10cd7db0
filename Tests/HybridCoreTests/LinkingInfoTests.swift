import Crypto
import HybridCore
import TestSeededRandom
import TestVectorFiles
import Testing

@Suite struct LinkingInfoTests {
    @Test func sharedVectors() { VectorFiles.expectAllPass("linking.json") }

    struct Linked {
        let info: LinkingInfo
        let phoneKey: P256.KeyAgreement.PrivateKey
        let clientKey: P256.KeyAgreement.PrivateKey
    }

    static func randomLinkingInfo(
        handshakeHash: [UInt8], playServicesTag: Bool = false, using random: inout SeededRandom
    ) -> Linked {
        let phoneKey = random.p256Key()
        let clientKey = random.p256Key()
        let info = LinkingInfo(
            contactID: random.bytes(in: 0...120), pairingID: random.bytes(8),
            linkSecret: random.bytes(32), identityKey: phoneKey,
            phoneName: random.text(maxLength: 20),
            clientIdentityKey: clientKey.publicKey, handshakeHash: handshakeHash, playServicesTag: playServicesTag
        )
        return Linked(info: info, phoneKey: phoneKey, clientKey: clientKey)
    }

    /// A structurally valid map with every field replaceable.
    static func map(replacing key: Int64? = nil, with value: CBORValue? = nil, removing removed: Int64? = nil)
        -> CBORValue
    {
        let point = Array(P256.KeyAgreement.PrivateKey().publicKey.x963Representation)
        var entries: [CBORMapEntry] = [
            CBORMapEntry(1, .bytes([1])), CBORMapEntry(2, .bytes([2])), CBORMapEntry(3, .bytes([3])),
            CBORMapEntry(4, .bytes(point)), CBORMapEntry(5, "phone"),
            CBORMapEntry(6, .bytes([UInt8](repeating: 6, count: 32))),
        ]
        entries.removeAll { $0.key == removed.map(CBORValue.int) || $0.key == key.map(CBORValue.int) }
        if let key, let value { entries.append(CBORMapEntry(.int(key), value)) }
        return .map(entries)
    }

    @Test func structuralErrorsAreTypedInSchemaOrder() {
        #expect(throws: HybridMessageError.cbor(.truncated)) { try LinkingInfo(cbor: []) }
        #expect(throws: HybridMessageError.notAMap) { try LinkingInfo(cborValue: 1) }
        #expect(throws: HybridMessageError.notAMap) { try LinkingInfo(cborValue: "foo") }
        for key: Int64 in 1...6 {
            #expect(throws: HybridMessageError.missingKey(key)) { try LinkingInfo(cborValue: Self.map(removing: key)) }
        }
        for key: Int64 in [1, 2, 3, 4, 6] {
            #expect(throws: HybridMessageError.wrongType(key: key)) {
                try LinkingInfo(cborValue: Self.map(replacing: key, with: "text"))
            }
        }
        #expect(throws: HybridMessageError.wrongType(key: 5)) {
            try LinkingInfo(cborValue: Self.map(replacing: 5, with: .bytes([0x61])))
        }
        // Keys are checked 1 to 6: with two bad keys, the lower one is reported, whichever way it is bad.
        for lower: Int64 in 1...5 {
            for higher in (lower + 1)...6 {
                #expect(throws: HybridMessageError.missingKey(lower)) {
                    try LinkingInfo(cborValue: Self.map(replacing: higher, with: .null, removing: lower))
                }
                #expect(throws: HybridMessageError.wrongType(key: lower)) {
                    try LinkingInfo(cborValue: Self.map(replacing: lower, with: .null, removing: higher))
                }
            }
        }
        // Type checks of all six keys come before the key-4 length check.
        #expect(throws: HybridMessageError.wrongType(key: 5)) {
            try LinkingInfo(cborValue: [
                1: .bytes([]), 2: .bytes([]), 3: .bytes([]), 4: .bytes([0]), 5: .bytes([]), 6: .bytes([]),
            ])
        }
        #expect(throws: HybridMessageError.invalidLength(key: 4, length: 33)) {
            try LinkingInfo(cborValue: Self.map(replacing: 4, with: .bytes([0x02] + [UInt8](repeating: 1, count: 32))))
        }
        #expect(throws: HybridMessageError.invalidPublicKey) {
            try LinkingInfo(cborValue: Self.map(replacing: 4, with: .bytes([0x04] + [UInt8](repeating: 0, count: 64))))
        }
        let point = Array(P256.KeyAgreement.PrivateKey().publicKey.x963Representation)
        #expect(throws: HybridMessageError.invalidPublicKey) {
            try LinkingInfo(cborValue: Self.map(replacing: 4, with: .bytes(flippingBit(64 * 8, of: point))))
        }
        #expect(throws: HybridMessageError.invalidPublicKey) {
            try LinkingInfo(cborValue: Self.map(replacing: 4, with: .bytes([0x06] + point.dropFirst())))
        }
    }

    @Test func randomInfoBuildsParsesAndVerifies() throws {
        var random = SeededRandom.forProperty()
        for _ in 0..<100 {
            let hash = random.bytes(32)
            let linked = Self.randomLinkingInfo(
                handshakeHash: hash, playServicesTag: Bool.random(using: &random), using: &random)
            let parsed = try LinkingInfo(cbor: linked.info.cbor)
            #expect(parsed == linked.info)
            #expect(parsed.authenticatorPublicKeyBytes == Array(linked.phoneKey.publicKey.x963Representation))
            try parsed.verifySignature(clientIdentityKey: linked.clientKey, handshakeHash: hash)
            _ = try LinkingInfo(
                verifying: linked.info.cborValue, clientIdentityKey: linked.clientKey, handshakeHash: hash)

            #expect(throws: HybridMessageError.invalidSignature) {
                try parsed.verifySignature(
                    clientIdentityKey: linked.clientKey,
                    handshakeHash: flippingBit(Int.random(in: 0..<256, using: &random), of: hash))
            }
            #expect(throws: HybridMessageError.invalidSignature) {
                try parsed.verifySignature(clientIdentityKey: random.p256Key(), handshakeHash: hash)
            }
            let flipped = Self.replacing(
                parsed, signature: flippingBit(Int.random(in: 0..<256, using: &random), of: parsed.signature))
            #expect(throws: HybridMessageError.invalidSignature) {
                try LinkingInfo(verifying: flipped, clientIdentityKey: linked.clientKey, handshakeHash: hash)
            }
            let short = Self.replacing(parsed, signature: Array(parsed.signature.dropLast()))
            #expect(throws: HybridMessageError.invalidSignature) {
                try LinkingInfo(verifying: short, clientIdentityKey: linked.clientKey, handshakeHash: hash)
            }
        }
    }

    @Test func playServicesTagNeedsTrue() throws {
        #expect(try LinkingInfo(cborValue: Self.map(replacing: 999, with: true)).playServicesTag)
        #expect(try !LinkingInfo(cborValue: Self.map(replacing: 999, with: 1)).playServicesTag)
        #expect(try !LinkingInfo(cborValue: Self.map(replacing: 999, with: false)).playServicesTag)
        #expect(try !LinkingInfo(cborValue: Self.map()).playServicesTag)
    }

    /// Random bytes and maps with one random field give linking info that survives its own
    /// encoding, or a HybridMessageError.
    @Test func malformedInputNeverCrashes() {
        var rng = SeededRandom.forProperty()
        var tally = ParseTally()
        let check = { (info: LinkingInfo) in #expect((try? LinkingInfo(cbor: info.cbor)) == info) }
        for _ in 0..<5_000 {
            let bytes = rng.bytes(in: 0...64)
            tally.record(
                HybridMessageError.self, { () throws(HybridMessageError) in try LinkingInfo(cbor: bytes) }, check: check
            )
            let key = Int64.random(in: 1...6, using: &rng)
            let map = Self.map(replacing: key, with: CBORTests.randomValue(depth: 3, using: &rng))
            tally.record(
                HybridMessageError.self, { () throws(HybridMessageError) in try LinkingInfo(cborValue: map) },
                check: check)
        }
        #expect(tally.values > 0 && tally.errors > 0)
    }

    private static func replacing(_ info: LinkingInfo, signature: [UInt8]) -> CBORValue {
        guard case .map(var entries) = info.cborValue else { return .null }
        entries.removeAll { $0.key == 6 }
        entries.append(CBORMapEntry(6, .bytes(signature)))
        return .map(entries)
    }
}
