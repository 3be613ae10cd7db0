import Crypto
import Foundation
import HybridCore
import Testing

@testable import HybridWallet

/// mdoc credentials and DeviceResponses on ISO/IEC 18013-5 Annex D's example
/// (Tests/Vectors/wallet/iso18013-5-annex-d.json).
@Suite struct MdocTests {
    @Test func readsTheAnnexDIssuerSigned() throws {
        let vector = try WalletVectors.json("iso18013-5-annex-d.json")
        let credential = try MdocCredential(issuerSigned: try WalletVectors.hex(vector["issuerSigned"]))
        #expect(credential.docType == vector["docType"]?.stringValue)
        #expect(credential.deviceKey == (try TestCredentials.isoDeviceKey()).publicJWK)
        let expected = try #require(vector["elements"]?.arrayValue).map {
            "\($0["namespace"]?.stringValue ?? "")/\($0["identifier"]?.stringValue ?? "")"
        }
        #expect(credential.elements.map { "\($0.namespace)/\($0.identifier)" } == expected)
        let family = try #require(credential.element([.key("org.iso.18013.5.1"), .key("family_name")]))
        #expect(family.value.jsonValue == .string(vector["familyName"]?.stringValue ?? ""))
        #expect(credential.element([.key("org.iso.18013.5.1"), .key("age_over_18")]) == nil)
        #expect(credential.element([.key("family_name")]) == nil)
    }

    /// One changed byte in an item breaks its MSO digest: the credential is refused.
    @Test func refusesAnItemThatDoesNotMatchItsDigest() throws {
        let vector = try WalletVectors.json("iso18013-5-annex-d.json")
        var bytes = try WalletVectors.hex(vector["issuerSigned"])
        let doe = Array("Doe".utf8)
        let index = try #require((0..<bytes.count - 3).first { Array(bytes[$0..<$0 + 3]) == doe })
        bytes[index] = UInt8(ascii: "R")
        #expect(throws: WalletError.self) { try MdocCredential(issuerSigned: bytes) }
    }

    @Test func refusesTruncatedAndDeepCBOR() {
        #expect(throws: WalletError.self) { try MdocCBORReader.decode([0x82, 0x01]) }
        #expect(throws: WalletError.self) { try MdocCBORReader.decode([0x5a, 0xff, 0xff, 0xff, 0xff]) }
        #expect(throws: WalletError.self) { try MdocCBORReader.decode(Array(repeating: 0x81, count: 40) + [0x00]) }
        #expect(throws: WalletError.self) { try MdocCBORReader.decode([0x00, 0x00]) }
    }

    /// The DeviceResponse copies the chosen items and issuerAuth byte for byte, and its
    /// deviceSignature verifies over DeviceAuthentication with the DC API session transcript.
    @Test func deviceResponseRevealsOnlyTheChosenElementAndSignsTheTranscript() throws {
        let key = try TestCredentials.isoDeviceKey()
        let stored = try TestCredentials.isoMdoc()
        let request = Array(
            #"{"response_type": "vp_token", "response_mode": "dc_api", "nonce": "abc", "dcql_query": {"credentials": [{"id": "mdl", "format": "mso_mdoc", "meta": {"doctype_value": "org.iso.18013.5.1.mDL"}, "claims": [{"path": ["org.iso.18013.5.1", "family_name"]}]}]}}"#
                .utf8)
        let prepared = try WalletPresenter.prepare(
            requestData: request, origin: "https://example.com", credentials: [stored])
        #expect(
            prepared.consent.text
                == "https://example.com asks for: family name, issuer, validity, device key, from your mobile driving licence."
        )
        let response = try JSONItem.parse(
            try WalletPresenter.respond(to: prepared, deviceKey: key, now: Date()), limit: 1 << 20)
        let encoded = try #require(response["vp_token"]?["mdl"]?.arrayValue?.first?.stringValue)
        let deviceResponse = try MdocCBORReader.decode(try #require(Base64URL.decode(encoded)))
        let document = try #require(deviceResponse["documents"]?.arrayValue?.first)
        let items = try #require(document["issuerSigned"]?["nameSpaces"]?["org.iso.18013.5.1"]?.arrayValue)
        let credential = try MdocCredential(issuerSigned: stored.bytes)
        let family = try #require(credential.element([.key("org.iso.18013.5.1"), .key("family_name")]))
        #expect(items.map(\.encoded) == [family.itemBytes])
        #expect(document["issuerSigned"]?["issuerAuth"]?.encoded == credential.issuerAuthBytes)

        // ISO/IEC 18013-5 §9.1.3.4 and RFC 9052 §4.4, from the parts of the response.
        let signature = try #require(document["deviceSigned"]?["deviceAuth"]?["deviceSignature"]?.arrayValue)
        try #require(signature.count == 4)
        #expect(signature[2] == .null)
        let namespacesBytes = try #require(document["deviceSigned"]?["nameSpaces"])
        #expect(namespacesBytes.encoded == [0xd8, 0x18, 0x41, 0xa0])
        let transcript = try MdocCBORReader.decode(SessionTranscript.dcAPI(origin: "https://example.com", nonce: "abc"))
        let authentication = MdocCBOR.array([
            .text("DeviceAuthentication"), transcript, .text("org.iso.18013.5.1.mDL"), namespacesBytes,
        ])
        let toBeSigned = MdocCBOR.array([
            .text("Signature1"), signature[0], .bytes([]),
            .bytes(MdocCBOR.tag(24, .bytes(authentication.encoded)).encoded),
        ]).encoded
        #expect(signature[0].bytesValue == [0xa1, 0x01, 0x26])
        let raw = try P256.Signing.ECDSASignature(rawRepresentation: try #require(signature[3].bytesValue))
        #expect(key.privateKey.publicKey.isValidSignature(raw, for: toBeSigned))
    }
}
