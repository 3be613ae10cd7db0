import Crypto
import HybridCTAP
import HybridCore
import TestSeededRandom
import Testing

/// Authenticator data layout and strict parsing, and ES256 COSE keys.
@Suite struct CTAP2AuthenticatorDataTests {
    static let rpIDHash = AuthenticatorData.rpIDHash("example.com")

    static func attested(_ key: P256.Signing.PublicKey = P256.Signing.PrivateKey().publicKey) -> AttestedCredentialData
    {
        AttestedCredentialData(
            aaguid: [UInt8](repeating: 0xaa, count: 16), credentialID: [1, 2, 3], credentialPublicKey: COSEKey(key).cbor
        )
    }

    @Test func layoutWithoutOptionalParts() {
        let data = AuthenticatorData(
            rpIDHash: Self.rpIDHash, flags: [.userPresent, .userVerified], signCount: 0x0102_0304)
        #expect(data.encoded == Self.rpIDHash + [0x05, 0x01, 0x02, 0x03, 0x04])
    }

    @Test func layoutWithAttestedCredentialData() throws {
        let key = P256.Signing.PrivateKey().publicKey
        let attested = Self.attested(key)
        let data = AuthenticatorData(
            rpIDHash: Self.rpIDHash, flags: [.userPresent], signCount: 1, attestedCredentialData: attested)
        let point = Array(key.x963Representation)
        var expected =
            Self.rpIDHash + [0x41, 0, 0, 0, 1] + [UInt8](repeating: 0xaa, count: 16) + [0x00, 0x03, 1, 2, 3]
        expected +=
            [0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + point[1..<33] + [0x22, 0x58, 0x20]
            + point[33..<65]
        #expect(data.encoded == expected)
        #expect(try AuthenticatorData(bytes: expected) == data)
        #expect(
            try COSEKey(cbor: try #require(data.attestedCredentialData).credentialPublicKey).publicKey.rawRepresentation
                == key.rawRepresentation)
    }

    @Test func atAndEdFlagsFollowContent() {
        var data = AuthenticatorData(
            rpIDHash: Self.rpIDHash, flags: [.userPresent, .attestedCredentialData, .extensionData], signCount: 0)
        #expect(data.flags == [.userPresent])
        data.extensions = ["credProtect": 1]
        #expect(data.flags == [.userPresent, .extensionData])
        data.attestedCredentialData = Self.attested()
        #expect(data.flags.rawValue == 0xc1)
        #expect(data.encoded[32] == 0xc1)
    }

    @Test func backupFlagsAndUnknownBitsRoundTrip() throws {
        let bytes = Self.rpIDHash + [0x3f, 0, 0, 0, 9]  // UP, RFU1, UV, BE, BS, RFU2
        let data = try AuthenticatorData(bytes: bytes)
        #expect(data.flags.contains([.userPresent, .userVerified, .backupEligible, .backedUp]))
        #expect(data.encoded == bytes)
    }

    @Test func strictParseFailures() throws {
        let full = AuthenticatorData(
            rpIDHash: Self.rpIDHash, flags: [.userPresent], signCount: 1,
            attestedCredentialData: Self.attested(), extensions: ["a": 1]
        ).encoded
        let fixed = Self.rpIDHash + [0x01, 0, 0, 0, 1]
        var attestedOnly = full
        attestedOnly[32] = 0x41  // AT without ED
        let keyEnd = full.count - 4  // extensions {"a": 1} are 4 bytes
        let cases: [([UInt8], CTAPError)] = [
            ([], .authenticatorDataTruncated),
            (Array(fixed.prefix(36)), .authenticatorDataTruncated),
            (fixed + [0x00], .authenticatorDataTrailingBytes),
            (Self.rpIDHash + [0x41, 0, 0, 0, 1], .authenticatorDataTruncated),
            (
                Self.rpIDHash + [0x41, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 16) + [0x00, 0x05, 1, 2],
                .authenticatorDataTruncated
            ),
            (
                Self.rpIDHash + [0x41, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 16) + [0x04, 0x00],
                .invalidLength(field: "authData.credentialId")
            ),
            (
                Self.rpIDHash + [0x41, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 16) + [0x00, 0x00],
                .authenticatorDataTruncated
            ),
            (
                Self.rpIDHash + [0x41, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 16) + [0x00, 0x00, 0x01],
                .unexpectedType(field: "authData.credentialPublicKey")
            ),
            (Array(attestedOnly.prefix(keyEnd - 1)), .invalidCBOR(.truncated)),  // key cut short
            // The key eats a byte.
            (Array(full.prefix(keyEnd - 1)) + [0xa1, 0x61, 0x61, 0x01], .invalidCBOR(.trailingBytes)),
            (Array(full.prefix(keyEnd)), .authenticatorDataTruncated),
            (Array(full.prefix(keyEnd)) + [0x81, 0x01], .unexpectedType(field: "authData.extensions")),
            (Array(full.prefix(keyEnd)) + [0xa1, 0x61, 0x61, 0x01, 0x00], .invalidCBOR(.trailingBytes)),
            (Array(full.prefix(keyEnd)) + [0xbf, 0xff], .invalidCBOR(.indefiniteLength)),
            (
                fixed.prefix(32) + [0x81, 0, 0, 0, 1] + [0xa2, 0x61, 0x62, 0x01, 0x61, 0x61, 0x01],
                .invalidCBOR(.unsortedKeys)
            ),
        ]
        for (bytes, error) in cases {
            #expect(throws: error) { try AuthenticatorData(bytes: bytes) }
        }
        #expect(try AuthenticatorData(bytes: full).encoded == full)
    }

    @Test func mutatedAuthenticatorDataNeverCrashes() {
        let full = AuthenticatorData(
            rpIDHash: Self.rpIDHash, flags: [.userPresent], signCount: 1,
            attestedCredentialData: Self.attested(), extensions: ["a": 1]
        ).encoded
        var rng = SeededRandom.forProperty()
        var tally = ParseTally()
        for _ in 0..<3000 {
            var bytes = full
            bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)))
            tally.record(CTAPError.self, { () throws(CTAPError) in try AuthenticatorData(bytes: bytes) }) {
                #expect($0.encoded == bytes, "\(Hex.encode(bytes))")
            }
        }
        #expect(tally.values > 0 && tally.errors > 0)
    }

    // MARK: COSE

    @Test func coseKeyRoundTrip() throws {
        for _ in 0..<20 {
            let key = P256.Signing.PrivateKey().publicKey
            let cose = COSEKey(key)
            let parsed = try COSEKey(bytes: cose.encoded)
            #expect(parsed == cose)
            #expect(parsed.publicKey.x963Representation == key.x963Representation)
            #expect(cose.encoded.count == 77)
        }
    }

    @Test func coseKeyStrictFailures() throws {
        let point = Array(P256.Signing.PrivateKey().publicKey.x963Representation)
        let x = CBORValue.bytes(Array(point[1..<33]))
        let y = CBORValue.bytes(Array(point[33..<65]))
        func key(_ kty: CBORValue? = 2, _ alg: CBORValue? = -7, _ crv: CBORValue? = 1, _ x: CBORValue?, _ y: CBORValue?)
            -> CBORValue
        {
            var entries: [CBORMapEntry] = []
            for (label, value) in [(Int64(1), kty), (3, alg), (-1, crv), (-2, x), (-3, y)] {
                if let value { entries.append(CBORMapEntry(.int(label), value)) }
            }
            return .map(entries)
        }
        var offCurve = Array(point[33..<65])
        offCurve[31] ^= 1
        let cases: [(CBORValue, CTAPError)] = [
            (key(1, -7, 1, x, y), .unsupportedAlgorithm(field: "credentialPublicKey.kty")),
            (key(2, -8, 1, x, y), .unsupportedAlgorithm(field: "credentialPublicKey.alg")),
            (key(2, -7, 2, x, y), .unsupportedAlgorithm(field: "credentialPublicKey.crv")),
            (key(nil, -7, 1, x, y), .missingParameter(field: "credentialPublicKey.kty")),
            (key(2, -7, 1, x, nil), .missingParameter(field: "credentialPublicKey.y")),
            (key(2, -7, 1, .bytes(Array(point[1..<32])), y), .invalidLength(field: "credentialPublicKey.x")),
            (key(2, "ES256", 1, x, y), .unexpectedType(field: "credentialPublicKey.alg")),
            (key(2, -7, 1, x, .bytes(offCurve)), .invalidParameter(field: "credentialPublicKey")),
            ([1, 2], .unexpectedType(field: "credentialPublicKey")),
        ]
        for (value, error) in cases {
            #expect(throws: error) { try COSEKey(cbor: value) }
        }
        #expect(throws: CTAPError.invalidCBOR(.truncated)) { try COSEKey(bytes: [0xa5, 0x01]) }
    }

    @Test func attestationObjectIsCanonicalAndStrict() throws {
        let data = AuthenticatorData(
            rpIDHash: Self.rpIDHash, flags: [.userPresent], signCount: 0, attestedCredentialData: Self.attested())
        let none = AttestationObject.none(data)
        // {"fmt": "none", "attStmt": {}, "authData": …}: keys by length then bytes.
        #expect(
            Array(none.encoded.prefix(19)) == [0xa3, 0x63] + Array("fmt".utf8) + [0x64] + Array("none".utf8)
                + [0x67] + Array("attStmt".utf8) + [0xa0])
        #expect(try AttestationObject(bytes: none.encoded) == none)
        let packed = AttestationObject.packedSelf(data, signature: [0x30, 0x01])
        #expect(packed.attestationStatement == ["alg": -7, "sig": .bytes([0x30, 0x01])])
        #expect(MakeCredentialResponse(packed).format == "packed")
        #expect(throws: CTAPError.missingParameter(field: "attestationObject.attStmt")) {
            try AttestationObject(bytes: CBOREncoder.encode(["fmt": "none", "authData": .bytes(data.encoded)]))
        }
        #expect(throws: CTAPError.unexpectedType(field: "attestationObject.attStmt")) {
            try AttestationObject(
                bytes: CBOREncoder.encode(["fmt": "none", "attStmt": [], "authData": .bytes(data.encoded)]))
        }
    }
}
