import Crypto
import HybridCore
import Testing

@testable import HybridWallet

/// Known answers from the specifications (Tests/Vectors/wallet/known-answers.json).
@Suite struct KnownAnswerTests {
    /// RFC 9901 §4.2.1–4.2.3: the digest is over the disclosure's base64url text.
    @Test func disclosureDigestsMatchRFC9901() throws {
        let vectors = try WalletVectors.json("known-answers.json")
        for vector in try #require(vectors["disclosures"]?.arrayValue) {
            let disclosure = try Disclosure(encoded: try #require(vector["disclosure"]?.stringValue))
            #expect(disclosure.digest == vector["digest"]?.stringValue, "\(vector["id"] ?? .null)")
            #expect(disclosure.name == vector["name"]?.stringValue)
            #expect(disclosure.value == vector["value"])
        }
    }

    /// RFC 7638 §3 thumbprint of OpenID4VP Appendix B.2.6.2's example JWK.
    @Test func jwkThumbprintMatchesOpenID4VPExample() throws {
        let vector = try #require(try WalletVectors.json("known-answers.json")["dcApiHandover"])
        let jwk = try P256PublicJWK(json: try #require(vector["jwk"]))
        #expect(jwk.thumbprint == (try WalletVectors.hex(vector["jwkThumbprint"])))
    }

    /// OpenID4VP 1.0 Appendix B.2.6.2: OpenID4VPDCAPIHandoverInfo, the handover and the SessionTranscript.
    @Test func sessionTranscriptMatchesOpenID4VPExample() throws {
        let vector = try #require(try WalletVectors.json("known-answers.json")["dcApiHandover"])
        let origin = try #require(vector["origin"]?.stringValue)
        let nonce = try #require(vector["nonce"]?.stringValue)
        let thumbprint = try WalletVectors.hex(vector["jwkThumbprint"])
        #expect(
            SessionTranscript.handoverInfo(origin: origin, nonce: nonce, jwkThumbprint: thumbprint)
                == (try WalletVectors.hex(vector["handoverInfo"])))
        #expect(
            SessionTranscript.handover(origin: origin, nonce: nonce, jwkThumbprint: thumbprint)
                == (try WalletVectors.hex(vector["handover"])))
        #expect(
            SessionTranscript.dcAPI(origin: origin, nonce: nonce, jwkThumbprint: thumbprint)
                == (try WalletVectors.hex(vector["sessionTranscript"])))
    }

    /// With response mode dc_api the thumbprint is CBOR null (0xf6) in the handover info.
    @Test func handoverInfoWithoutEncryptionEndsInNull() {
        let info = SessionTranscript.handoverInfo(origin: "https://example.com", nonce: "n", jwkThumbprint: nil)
        #expect(info.first == 0x83)
        #expect(info.last == 0xf6)
    }
}
