import Crypto
import TestVectorFiles
import Testing

@testable import HybridCore

@Suite struct KeyDerivationTests {
    @Test func sharedHKDFVectors() { VectorFiles.expectAllPass("hkdf.json") }
    @Test func sharedSeedKeyVectors() { VectorFiles.expectAllPass("seedKey.json") }

    @Test func purposeConstantsMatchChromium() {
        #expect(KeyPurpose.allCases.map(\.rawValue) == [1, 2, 3, 4, 5, 6])
    }

    /// RFC 5869 appendix A, test cases 1 and 3.
    @Test func hkdfMatchesRFC5869() throws {
        let okm1 = KeyDerivation.hkdfSHA256(
            secret: [UInt8](repeating: 0x0b, count: 22),
            salt: Array(0x00...0x0c),
            info: Array(0xf0...0xf9),
            byteCount: 42
        )
        #expect(
            Hex.encode(okm1) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
        )
        let okm3 = KeyDerivation.hkdfSHA256(
            secret: [UInt8](repeating: 0x0b, count: 22),
            salt: [],
            info: [],
            byteCount: 42
        )
        #expect(
            Hex.encode(okm3) == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"
        )
    }

    @Test func absentAndEmptySaltAgree() {
        let secret: [UInt8] = Array(0..<16)
        #expect(
            KeyDerivation.derive(from: secret, salt: nil, purpose: .psk, byteCount: 32)
                == KeyDerivation.derive(from: secret, salt: [], purpose: .psk, byteCount: 32)
        )
        #expect(
            KeyDerivation.derive(from: secret, salt: nil, purpose: .psk, byteCount: 32)
                != KeyDerivation.derive(from: secret, salt: nil, purpose: .pairedSecret, byteCount: 32)
        )
    }

    /// Expected remainders computed independently with Python integers.
    @Test(arguments: [
        (String(repeating: "ff", count: 48), "431905529c0166ce652e96b7ccca0a99679b73e19ad16947f01cf013fc632550"),
        ("01" + String(repeating: "00", count: 32), "00000000ffffffff00000000000000004319055258e8617b0c46353d039cdaaf"),
        (String(repeating: "ff", count: 32), "00000000ffffffff00000000000000004319055258e8617b0c46353d039cdaae"),
        (
            "ffffffff00000000fffffffffffffffebce6faaea7179e83f3b9cac2fc6325514319055258e8617b0c46353d039d0ae8",
            "0000000000000000000000000000000000000000000000000000000000003039"
        ),
        (
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "004c57a1ee7d296a73796de86a6ee7b8288d9f79e1b0754bea6ea3da3e1f1a50"
        ),
        (
            "01fffffffe00000001ffffffffffffffff79cdf55b4e2f3d09e7739585f8c64aa1",
            "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632550"
        ),
        ("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551", String(repeating: "00", count: 32)),
        ("", String(repeating: "00", count: 32)),
    ])
    func orderReductionMatchesPython(input: String, expected: String) throws {
        #expect(Hex.encode(P256OrderReduction.reduce(bigEndian: try Hex.decode(input))) == expected)
    }

    @Test func seedKeyIsUsableAndDeterministic() {
        let seed = [UInt8](repeating: 0x42, count: 32)
        let a = IdentityKeyDerivation.privateKey(fromSeed: seed)
        let b = IdentityKeyDerivation.privateKey(fromSeed: seed)
        #expect(a.rawRepresentation == b.rawRepresentation)
        #expect(Array(a.rawRepresentation) == IdentityKeyDerivation.privateScalar(fromSeed: seed))
        #expect(
            IdentityKeyDerivation.privateKey(fromSeed: [0x43] + seed.dropFirst()).rawRepresentation
                != a.rawRepresentation
        )
    }

    @Test func qrSecretHelpersUseTheRightPurposes() throws {
        let secret = try #require(QRSecret(bytes: try Hex.decode("01fea6f7c4807493dc256f9eacf756c9")))
        // webauthn-rs known tunnel ID (also in hkdf.json).
        #expect(secret.tunnelID.hex == "367CBBF5F5085DF4098476AFE4B9B1D2")
        #expect(
            secret.eidKey.bytes == KeyDerivation.derive(from: secret.bytes, salt: nil, purpose: .eidKey, byteCount: 64)
        )
        let plaintext = try AdvertPlaintext(bytes: try Hex.decode("008bb5c5c9a44d913a5eb20265550000"))
        #expect(Hex.encode(secret.psk(eidPlaintext: plaintext).bytes).hasPrefix("839f4fa0f797563f"))
        #expect(QRSecret(bytes: [UInt8](repeating: 0, count: 15)) == nil)
        #expect(QRSecret(bytes: [UInt8](repeating: 0, count: 17)) == nil)
        #expect("\(secret)" == "QRSecret(redacted)")
    }
}
