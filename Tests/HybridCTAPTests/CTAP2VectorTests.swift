import Crypto
import Foundation
import HybridCTAP
import HybridConformance
import HybridCore
import TestVectorFiles
import Testing

/// CTAP2 types against bytes from other implementations: the CTAP 2.1 spec's makeCredential
/// example and its packed-attestation response (webauthn-rs framing tests, frame.json), the
/// synthetic S1 session's makeCredential (session.json), phones' getInfo (postHandshake.json)
/// and the rpIdHash vector.
@Suite struct CTAP2VectorTests {
    // MARK: makeCredential request (CTAP 2.1 spec example via webauthn-rs)

    @Test func specExampleMakeCredentialRequestParsesAndReencodesIdentically() throws {
        let payload = try VectorLookup.hex("frame.json", case: "webauthn-rs-ctap21-make-credential", key: "payload")
        let request = try CTAPRequest(bytes: payload)
        guard case .makeCredential(let parameters) = request else {
            Issue.record("not a makeCredential: \(request.command)")
            return
        }
        #expect(
            parameters.clientDataHash
                == (try Hex.decode("687134968222ec17202e42505f8ed2b16ae22f16bb05b88c25db9e602645f141")))
        #expect(parameters.rp == PublicKeyCredentialRPEntity(id: "test.ctap", name: "test.ctap"))
        #expect(
            parameters.user.id == (try Hex.decode("2b6689bb18f4169f069fbcdf50cb6ea3c60a861b9a7b63946983e0b577b78c70")))
        #expect(parameters.user.name == "testctap@ctap.com")
        #expect(parameters.user.displayName == "Test Ctap")
        #expect(parameters.publicKeyCredentialParameters.map(\.algorithm) == [-7, -257, -37])
        #expect(parameters.publicKeyCredentialParameters.allSatisfy { $0.type == "public-key" })
        #expect(parameters.options == CTAPRequestOptions(residentKey: true))
        #expect(parameters.excludeList == nil && parameters.extensions == nil && parameters.pinUvAuthParam == nil)
        #expect(request.encoded == payload)
    }

    @Test func syntheticSessionMakeCredentialParses() throws {
        let plaintext = try VectorLookup.sessionFrame("synthetic-s1-qr-flow", index: 4)
        #expect(plaintext.first == 0x01)  // CTAP message type (protocol.md §7.3)
        let request = try CTAPRequest(bytes: plaintext.dropFirst())
        guard case .makeCredential(let parameters) = request else {
            Issue.record("not a makeCredential: \(request.command)")
            return
        }
        #expect(parameters.clientDataHash == [UInt8](repeating: 0x11, count: 32))
        #expect(parameters.rp == PublicKeyCredentialRPEntity(id: "example.com", name: "example.com"))
        #expect(
            parameters.user
                == PublicKeyCredentialUserEntity(id: [UInt8](repeating: 0x22, count: 16), name: "a", displayName: "A"))
        #expect(
            parameters.publicKeyCredentialParameters == [PublicKeyCredentialParameters(algorithm: COSEAlgorithm.es256)])
        #expect(parameters.options == nil)
        #expect(request.encoded == Array(plaintext.dropFirst()))
    }

    // MARK: makeCredential response with packed attestation (CTAP 2.1 spec example)

    @Test func specExampleMakeCredentialResponseParsesStrictly() throws {
        let payload = try VectorLookup.hex("frame.json", case: "webauthn-rs-ctap21-response-v1", key: "payload")
        let body = try CBORDecoder.decode(payload)
        let response = try MakeCredentialResponse(cbor: body)
        #expect(response.format == "packed")
        let authData = response.authenticatorData
        // The request's RP ID is "test.ctap"; its hash starts 0021f5fc.
        #expect(authData.rpIDHash == AuthenticatorData.rpIDHash("test.ctap"))
        #expect(authData.flags == [.userPresent, .userVerified, .attestedCredentialData, .extensionData])
        #expect(authData.flags.rawValue == 0xc5)
        #expect(authData.signCount == 0x55)
        let attested = try #require(authData.attestedCredentialData)
        #expect(attested.aaguid == (try Hex.decode("f8a011f38c0a4d15800617111f9edc7d")))
        #expect(attested.credentialID == (try Hex.decode("f4d57b23dd0cb785680cdaa7f7e44f60")))
        let key = try COSEKey(cbor: attested.credentialPublicKey)
        #expect(
            key.x963Representation
                == (try Hex.decode(
                    "04df017d0b286795bea153d166a0a15b4f6b67a3af4a101e10e8496f3dd3c5d1a9"
                        + "94b22551e6325d7733c41bb2f5a642adee417c97e0906197b5b0cd8b8d6c6ba7")))
        #expect(authData.extensions == ["hmac-secret": true])
        // Our encoder reproduces the other implementation's bytes exactly.
        #expect(CBOREncoder.encode(response.cbor) == payload)
        #expect(response.encodedResponse == [0x00] + payload)
        #expect(try MakeCredentialResponse(responseBytes: [0x00] + payload) == response)
    }

    /// The signature in the spec example's packed statement verifies with the attestation
    /// certificate's key over authData ‖ clientDataHash: our parse gives back the exact signed
    /// bytes, and the signed message is what we sign too.
    @Test func specExamplePackedSignatureVerifiesOverAuthDataAndClientDataHash() throws {
        let payload = try VectorLookup.hex("frame.json", case: "webauthn-rs-ctap21-response-v1", key: "payload")
        let requestBytes = try VectorLookup.hex(
            "frame.json", case: "webauthn-rs-ctap21-make-credential", key: "payload")
        guard case .makeCredential(let request) = try CTAPRequest(bytes: requestBytes) else {
            Issue.record("request is not a makeCredential")
            return
        }
        let response = try MakeCredentialResponse(cbor: try CBORDecoder.decode(payload))
        let statement = response.attestationStatement
        #expect(statement[textKey: "alg"] == .int(-7))
        let signature = try #require(statement[textKey: "sig"]?.bytesValue)
        let certificate = try #require(statement[textKey: "x5c"]?.arrayValue?.first?.bytesValue)
        // The certificate's SubjectPublicKeyInfo: an id-ecPublicKey / prime256v1 header, then the point.
        let spkiHeader: [UInt8] = try Hex.decode("3059301306072a8648ce3d020106082a8648ce3d030107034200")
        let start = try #require(Self.firstIndex(of: spkiHeader, in: certificate)) + spkiHeader.count
        let attestationKey = try P256.Signing.PublicKey(x963Representation: certificate[start..<start + 65])
        let signed = response.authenticatorData.encoded + request.clientDataHash
        let ecdsa = try P256.Signing.ECDSASignature(derRepresentation: signature)
        #expect(attestationKey.isValidSignature(ecdsa, for: signed))
        #expect(!attestationKey.isValidSignature(ecdsa, for: signed + [0]))

        let attestationObject = AttestationObject(response)
        #expect(try AttestationObject(bytes: attestationObject.encoded) == attestationObject)
        #expect(Array(attestationObject.encoded.prefix(5)) == [0xa3, 0x63, 0x66, 0x6d, 0x74])  // {"fmt" first
    }

    @Test func buildingTheSpecExampleAuthenticatorDataGivesItsBytes() throws {
        let payload = try VectorLookup.hex("frame.json", case: "webauthn-rs-ctap21-response-v1", key: "payload")
        let expected = try #require(try CBORDecoder.decode(payload)[intKey: 2]?.bytesValue)
        let point = try Hex.decode(
            "04df017d0b286795bea153d166a0a15b4f6b67a3af4a101e10e8496f3dd3c5d1a9"
                + "94b22551e6325d7733c41bb2f5a642adee417c97e0906197b5b0cd8b8d6c6ba7")
        let built = AuthenticatorData(
            rpIDHash: AuthenticatorData.rpIDHash("test.ctap"),
            flags: [.userPresent, .userVerified],
            signCount: 85,
            attestedCredentialData: AttestedCredentialData(
                aaguid: try Hex.decode("f8a011f38c0a4d15800617111f9edc7d"),
                credentialID: try Hex.decode("f4d57b23dd0cb785680cdaa7f7e44f60"),
                credentialPublicKey: COSEKey(try P256.Signing.PublicKey(x963Representation: point)).cbor
            ),
            extensions: ["hmac-secret": true]
        )
        #expect(built.encoded == expected)
        #expect(try AuthenticatorData(bytes: expected) == built)
    }

    // MARK: getInfo from phones

    @Test(arguments: ["webauthn-rs-android-chrome", "webauthn-rs-ios16", "synthetic-s1"])
    func phoneGetInfoParsesAndReencodes(name: String) throws {
        let bytes = try VectorLookup.hex("postHandshake.json", case: name, key: "getInfo")
        let fields = try VectorLookup.object("postHandshake.json", case: name, key: "getInfoFields")
        let info = try AuthenticatorGetInfoResponse(bytes: bytes)
        #expect(info.versions == VectorLookup.strings(fields["versions"]))
        #expect(info.extensions == VectorLookup.strings(fields["extensions"]))
        #expect(Hex.encode(info.aaguid) == VectorLookup.string(fields["aaguid"]))
        #expect(info.transports == VectorLookup.strings(fields["transports"]))
        guard case .object(let options)? = fields["options"] else {
            Issue.record("options missing in vector")
            return
        }
        var expectedOptions: [String: Bool] = [:]
        for (key, value) in options { if case .bool(let flag) = value { expectedOptions[key] = flag } }
        #expect(info.options == expectedOptions)
        #expect(info.encoded == bytes)
    }

    @Test func rpIDHashVector() throws {
        let rpID = try #require(
            VectorLookup.string(try VectorLookup.field("rpIdHash.json", case: "credentialsd-webauthn-io", key: "rpID")))
        let hash = try VectorLookup.hex("rpIdHash.json", case: "credentialsd-webauthn-io", key: "hash")
        #expect(AuthenticatorData.rpIDHash(rpID) == hash)
    }

    static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<$0 + needle.count]) == needle }
    }
}

/// Reads single fields of the shared vector files by case name.
enum VectorLookup {
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    static func cases(_ file: String) throws -> [[String: JSONValue]] {
        let json = try JSONValue.parse(try Data(contentsOf: URL(fileURLWithPath: VectorFiles.path(file))))
        guard case .object(let object) = json, case .array(let cases)? = object["cases"] else {
            throw Missing(description: "\(file): no cases")
        }
        return cases.compactMap { if case .object(let testCase) = $0 { testCase } else { nil } }
    }

    static func testCase(_ file: String, _ name: String) throws -> [String: JSONValue] {
        guard let found = try cases(file).first(where: { $0["name"] == .string(name) }) else {
            throw Missing(description: "\(file): no case \(name)")
        }
        return found
    }

    static func field(_ file: String, case name: String, key: String) throws -> JSONValue {
        guard let value = try testCase(file, name)[key] else {
            throw Missing(description: "\(file) \(name): no \(key)")
        }
        return value
    }

    static func hex(_ file: String, case name: String, key: String) throws -> [UInt8] {
        guard let text = string(try field(file, case: name, key: key)) else {
            throw Missing(description: "\(key) is not a string")
        }
        return try Hex.decode(text)
    }

    static func object(_ file: String, case name: String, key: String) throws -> [String: JSONValue] {
        guard case .object(let object) = try field(file, case: name, key: key) else {
            throw Missing(description: "\(key) is not an object")
        }
        return object
    }

    /// The plaintext of frame `index` of a session case.
    static func sessionFrame(_ name: String, index: Int) throws -> [UInt8] {
        guard case .array(let frames) = try field("session.json", case: name, key: "frames") else {
            throw Missing(description: "no frames")
        }
        for case .object(let frame) in frames where frame["index"] == .number(Double(index)) {
            guard let text = string(frame["plaintext"]) else { break }
            return try Hex.decode(text)
        }
        throw Missing(description: "no frame \(index)")
    }

    static func string(_ value: JSONValue?) -> String? {
        if case .string(let text)? = value { text } else { nil }
    }

    static func strings(_ value: JSONValue?) -> [String]? {
        guard case .array(let elements)? = value else { return nil }
        return elements.compactMap { string($0) }
    }
}
