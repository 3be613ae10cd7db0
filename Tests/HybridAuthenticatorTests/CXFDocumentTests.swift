import Crypto
import Foundation
import HybridAuthenticator
import HybridCore
import Testing

/// The CXF 1.0 reader on the specification's Appendix A example (Tests/Vectors/cxf, provenance in
/// its README) and on a corpus of broken documents. Expected values are read off the example's
/// text, or computed by Python `cryptography` (the public key), never produced by our code.
@Suite struct CXFDocumentTests {
    static var appendixText: String {
        get throws {
            try String(contentsOfFile: AuthenticatorVectors.directory + "/cxf/appendix-a-excerpt.json", encoding: .utf8)
        }
    }

    /// Base64url through Foundation's base64 decoder, not ours.
    static func b64url(_ text: String) throws -> [UInt8] {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Array(try #require(Data(base64Encoded: standard)))
    }

    @Test func readsTheAppendixExample() throws {
        let document = try CXFDocument(bytes: Array(try Self.appendixText.utf8))
        #expect(document.version == (1, 0))
        #expect(document.exporterRPID == "exporter.example.com")
        #expect(document.exporterDisplayName == "Exporter app")
        #expect(document.timestamp == 1_705_228_800)
        #expect(document.passkeys.count == 1)
        let passkey = try #require(document.passkeys.first)
        #expect(passkey.credentialID == Array("credentialIdExample".utf8))
        #expect(passkey.rpID == "webauthn.io")
        #expect(passkey.username == "johndoe")
        #expect(passkey.userDisplayName == "John Doe")
        #expect(passkey.userHandle == (try Self.b64url("cnEzaNHWcYK3coWZjvoaV1Hj9gnI12mKe2dL2HZVFlY")))
        // The public key of `key`, as Python `cryptography` computes it (X9.62 uncompressed).
        #expect(
            Hex.encode(passkey.privateKey.publicKey.x963Representation)
                == "04a6764d712ec2b4a0e961c483e9d1dd59b92d2c4fd9dfe8166d49e961aaf2c15b"
                + "47ce2f7de5fdb5e0b2bfd24d41e308b9fc97a81c449c1eece42f6d0b9b675758")
        #expect(
            passkey.hmacCredentials
                == CXFHMACCredentials(
                    withUV: try Self.b64url("j3N5T9qLpWz2rYf4vS6lDn1KpQx8E0fRc2a7Bm5nUsw"),
                    withoutUV: try Self.b64url("y2R8tL3eWf5qBz0sK4hHn9rVgX7pD1cQm6uTj2aP8Fs")))
        #expect(passkey.droppedExtensions == ["credBlob", "largeBlob", "payments"])
        #expect(passkey.createdAt == 1_705_142_400)
        #expect(passkey.title == "WebAuthn.io")
        #expect(passkey.field == "accounts[0].items[1].credentials[0]")
        #expect(document.skipped.map(\.type) == ["basic-auth", "totp", "note", "generated-password"])
        #expect(document.skipped.first?.field == "accounts[0].items[0].credentials[0]")
    }

    /// One broken document: the appendix with one edit, and the error naming the member.
    struct BadDocument: CustomTestStringConvertible, Sendable {
        let name: String
        let edit: @Sendable (String) -> String
        let expected: CXFError
        var testDescription: String { name }
    }

    static let passkeyPath = "accounts[0].items[1].credentials[0]"
    static let appendixKey =
        "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgARu_0sCt20EpgVxb4Puq3Ga5VVLpuTY75ngvZlyq3X6hRANCAASmdk1xLsK0oOlhxIPp0d1ZuS0sT9nf6BZtSelhqvLBW0fOL33l_bXgsr_STUHjCLn8l6gcRJwe7OQvbQubZ1dY"
    /// RFC 8410 §10.3: an Ed25519 private key in PKCS#8 (standard base64 there; base64url here).
    static let ed25519Key = "MC4CAQAwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp-K06_nwoy_HU--CXqI9EdVhC"

    static func replacing(_ old: String, _ new: String) -> @Sendable (String) -> String {
        { $0.replacingOccurrences(of: old, with: new) }
    }

    static func key(_ der: [UInt8]) -> @Sendable (String) -> String { replacing(appendixKey, Base64URL.encode(der)) }

    static let badDocuments: [BadDocument] = {
        let p = passkeyPath
        let appendixDER = Base64URL.decode(appendixKey) ?? []
        let length = (try? appendixText.utf8.count) ?? 0
        func invalid(at offset: Int) -> CXFError {
            .malformedJSON(
                field: "",
                reason: "invalid JSON at byte \(offset): bad syntax, a member name repeated in one object, "
                    + "a lone surrogate or a raw control character")
        }
        return [
            BadDocument(
                name: "not JSON", edit: { String($0.prefix(40)) }, expected: invalid(at: 40)),
            BadDocument(name: "trailing garbage", edit: { $0 + "x" }, expected: invalid(at: length)),
            BadDocument(name: "a second document after the first", edit: { $0 + "{}" }, expected: invalid(at: length)),
            BadDocument(
                name: "an array, not an object", edit: { "[" + $0 + "]" },
                expected: .malformedJSON(field: "", reason: "wrong JSON type")),
            BadDocument(
                name: "major version 2", edit: replacing("\"major\": 1", "\"major\": 2"),
                expected: .unsupportedVersion(major: 2, minor: 0)),
            BadDocument(
                name: "no version", edit: replacing("\"version\"", "\"versio\""),
                expected: .missingMember(field: "version")),
            BadDocument(
                name: "no exporterRpId", edit: replacing("\"exporterRpId\"", "\"exporterRPID\""),
                expected: .missingMember(field: "exporterRpId")),
            BadDocument(
                name: "timestamp is a string",
                edit: replacing("\"timestamp\": 1705228800", "\"timestamp\": \"1705228800\""),
                expected: .malformedJSON(field: "timestamp", reason: "wrong JSON type")),
            BadDocument(
                name: "credentialId is not base64url",
                edit: replacing("Y3JlZGVudGlhbElkRXhhbXBsZQ", "Y3JlZGVudGlh+ElkRXhhbXBsZQ"),
                expected: .invalidBase64URL(field: p + ".credentialId")),
            BadDocument(
                name: "credentialId has non-canonical trailing bits",
                edit: replacing("Y3JlZGVudGlhbElkRXhhbXBsZQ", "Y3JlZGVudGlhbElkRXhhbXBsZR"),
                expected: .invalidBase64URL(field: p + ".credentialId")),
            BadDocument(
                name: "empty userHandle", edit: replacing("cnEzaNHWcYK3coWZjvoaV1Hj9gnI12mKe2dL2HZVFlY", ""),
                expected: .invalidLength(field: p + ".userHandle", count: 0, allowed: 1...64)),
            BadDocument(
                name: "userHandle of 65 bytes",
                edit: replacing(
                    "cnEzaNHWcYK3coWZjvoaV1Hj9gnI12mKe2dL2HZVFlY", Base64URL.encode([UInt8](repeating: 7, count: 65))),
                expected: .invalidLength(field: p + ".userHandle", count: 65, allowed: 1...64)),
            BadDocument(
                name: "no key", edit: replacing("\"key\":", "\"keys\":"), expected: .missingMember(field: p + ".key")),
            BadDocument(
                name: "key is not base64url", edit: replacing(appendixKey, "MIGH*"),
                expected: .invalidBase64URL(field: p + ".key")),
            BadDocument(
                name: "key is random bytes", edit: key([UInt8](repeating: 0x42, count: 40)),
                expected: .invalidPrivateKey(field: p + ".key", reason: "not one DER SEQUENCE")),
            BadDocument(
                name: "key is SEC1, not PKCS#8", edit: key(Array(appendixDER.suffix(0x6d))),
                expected: .invalidPrivateKey(field: p + ".key", reason: "no AlgorithmIdentifier")),
            BadDocument(
                name: "key with a byte after it", edit: key(appendixDER + [0]),
                expected: .invalidPrivateKey(field: p + ".key", reason: "not one DER SEQUENCE")),
            BadDocument(
                name: "key truncated", edit: key(Array(appendixDER.dropLast())),
                expected: .invalidPrivateKey(field: p + ".key", reason: "not one DER SEQUENCE")),
            BadDocument(
                name: "key with a zero scalar",
                edit: key(Array(appendixDER.prefix(36)) + [UInt8](repeating: 0, count: 32) + appendixDER.dropFirst(68)),
                expected: .invalidPrivateKey(field: p + ".key", reason: "the P-256 key does not parse")),
            BadDocument(
                name: "Ed25519 key", edit: replacing(appendixKey, ed25519Key),
                expected: .unsupportedKeyAlgorithm(field: p + ".key", algorithm: "Ed25519")),
            BadDocument(
                name: "P-384 key", edit: key(Array(P384.Signing.PrivateKey().derRepresentation)),
                expected: .unsupportedKeyAlgorithm(field: p + ".key", algorithm: "P-384 (secp384r1)")),
            BadDocument(
                name: "rpId is a URL", edit: replacing("\"webauthn.io\"", "\"https://webauthn.io\""),
                expected: .invalidRelyingPartyID(field: p + ".rpId")),
            BadDocument(
                name: "rpId upper case", edit: replacing("\"webauthn.io\"", "\"WebAuthn.io\""),
                expected: .invalidRelyingPartyID(field: p + ".rpId")),
            BadDocument(
                name: "rpId an IPv4 address", edit: replacing("\"webauthn.io\"", "\"192.0.2.1\""),
                expected: .invalidRelyingPartyID(field: p + ".rpId")),
            BadDocument(
                name: "rpId empty", edit: replacing("\"webauthn.io\"", "\"\""),
                expected: .invalidRelyingPartyID(field: p + ".rpId")),
            BadDocument(
                name: "rpId with an empty label", edit: replacing("\"webauthn.io\"", "\"webauthn..io\""),
                expected: .invalidRelyingPartyID(field: p + ".rpId")),
            BadDocument(
                name: "username is a number", edit: replacing("\"username\": \"johndoe\"", "\"username\": 7"),
                expected: .malformedJSON(field: p + ".username", reason: "wrong JSON type")),
            BadDocument(
                name: "no userDisplayName", edit: replacing("\"userDisplayName\"", "\"displayName\""),
                expected: .missingMember(field: p + ".userDisplayName")),
            BadDocument(
                name: "hmac algorithm hmac-sha512", edit: replacing("\"hmac-sha256\"", "\"hmac-sha512\""),
                expected: .unsupportedHMACAlgorithm(
                    field: p + ".fido2Extensions.hmacCredentials.algorithm", algorithm: "hmac-sha512")),
            BadDocument(
                name: "credWithUV of 31 bytes",
                edit: replacing(
                    "j3N5T9qLpWz2rYf4vS6lDn1KpQx8E0fRc2a7Bm5nUsw", Base64URL.encode([UInt8](repeating: 1, count: 31))),
                expected: .invalidLength(
                    field: p + ".fido2Extensions.hmacCredentials.credWithUV", count: 31, allowed: 32...32)),
            BadDocument(
                name: "no credWithoutUV", edit: replacing("\"credWithoutUV\"", "\"credWithoutUv\""),
                expected: .missingMember(field: p + ".fido2Extensions.hmacCredentials.credWithoutUV")),
            BadDocument(
                name: "a credential without type", edit: replacing("\"type\": \"note\"", "\"kind\": \"note\""),
                expected: .missingMember(field: "accounts[0].items[2].credentials[0].type")),
            BadDocument(
                name: "the passkey twice",
                edit: { text in
                    let start = text.range(of: "{\n                            \"type\": \"passkey\"")!.lowerBound
                    let end = text.range(
                        of: "\"payments\": true\n                            }\n                        }")!.upperBound
                    let credential = String(text[start..<end])
                    return text.replacingOccurrences(of: credential, with: credential + ",\n" + credential)
                },
                expected: .duplicateCredential(field: "accounts[0].items[1].credentials[1]")),
        ]
    }()

    @Test(arguments: badDocuments)
    func refusesBadDocument(_ bad: BadDocument) throws {
        let bytes = Array(bad.edit(try Self.appendixText).utf8)
        #expect(throws: bad.expected) { try CXFDocument(bytes: bytes) }
    }

    /// A member named twice in one object refuses the whole document, as the core's strict JSON
    /// reader refuses it everywhere else: readers disagree on which one counts (Foundation's
    /// decoder took the first, jq and Python take the last), so an importer must not pick one.
    @Test(arguments: [
        ("rpId", #""rpId": "webauthn.io""#, #""rpId": "webauthn.io", "rpId": "evil.example""#),
        ("username", #""username": "johndoe""#, #""username": "johndoe", "username": "root""#),
        ("exporterRpId", #""exporterRpId": "#, #""exporterRpId": "other.example", "exporterRpId": "#),
        ("a credential's type", #""type": "note""#, #""type": "note", "type": "passkey""#),
    ])
    func refusesAMemberNamedTwice(_ name: String, _ member: String, _ twice: String) throws {
        let text = try Self.appendixText
        try #require(text.contains(member), "the appendix has \(member)")
        let bytes = Array(text.replacingOccurrences(of: member, with: twice).utf8)
        let error = #expect(throws: CXFError.self) { try CXFDocument(bytes: bytes) }
        guard case .malformedJSON(let field, let reason)? = error else {
            Issue.record("not refused as malformed JSON: \(String(describing: error))")
            return
        }
        #expect(field.isEmpty && reason.contains("repeated"), "\(reason)")
    }

    @Test func refusesADocumentOverTheSizeLimit() throws {
        let bytes = Array(try Self.appendixText.utf8)
        #expect(throws: CXFError.tooLarge(limit: bytes.count - 1)) {
            try CXFDocument(bytes: bytes, sizeLimit: bytes.count - 1)
        }
        #expect(throws: Never.self) { try CXFDocument(bytes: bytes, sizeLimit: bytes.count) }
    }

    @Test func ignoresUnknownMembersAndTakesALaterMinorVersion() throws {
        let text = try Self.appendixText
            .replacingOccurrences(of: "\"minor\": 0", with: "\"minor\": 3, \"patch\": {\"x\": [1, 2]}")
            .replacingOccurrences(of: "\"rpId\": \"webauthn.io\"", with: "\"rpId\": \"webauthn.io\", \"future\": null")
        let document = try CXFDocument(bytes: Array(text.utf8))
        #expect(document.version == (1, 3))
        #expect(document.passkeys.map(\.rpID) == ["webauthn.io"])
    }

    @Test func acceptsPaddedBase64URL() throws {
        // 19 bytes: two "=" of padding in the padded form.
        let text = try Self.appendixText.replacingOccurrences(
            of: "\"Y3JlZGVudGlhbElkRXhhbXBsZQ\"", with: "\"Y3JlZGVudGlhbElkRXhhbXBsZQ==\"")
        #expect(
            try CXFDocument(bytes: Array(text.utf8)).passkeys.first?.credentialID == Array("credentialIdExample".utf8))
    }
}
