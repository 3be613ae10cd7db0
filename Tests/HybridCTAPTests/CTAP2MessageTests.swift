import Crypto
import HybridCTAP
import HybridCore
import TestSeededRandom
import Testing

/// Round trips and strict parsing of CTAP2 requests, responses and status codes.
@Suite struct CTAP2MessageTests {
    static let hash = [UInt8](repeating: 0xab, count: 32)

    static let fullMakeCredential = MakeCredentialRequest(
        clientDataHash: hash,
        rp: PublicKeyCredentialRPEntity(id: "example.com", name: "Example"),
        user: PublicKeyCredentialUserEntity(id: [1, 2, 3], name: "alice", displayName: "Alice"),
        publicKeyCredentialParameters: [
            PublicKeyCredentialParameters(algorithm: -7), PublicKeyCredentialParameters(algorithm: -257),
        ],
        excludeList: [PublicKeyCredentialDescriptor(id: [9, 9], transports: ["hybrid", "internal"])],
        extensions: ["credProtect": 2],
        options: CTAPRequestOptions(residentKey: true, userPresence: true, userVerification: false),
        pinUvAuthParam: [1, 2], pinUvAuthProtocol: 2, enterpriseAttestation: 1
    )

    static let fullGetAssertion = GetAssertionRequest(
        rpID: "example.com", clientDataHash: hash,
        allowList: [PublicKeyCredentialDescriptor(id: [7], transports: ["usb"])],
        extensions: ["prf": ["eval": ["first": .bytes([1])]]],
        options: CTAPRequestOptions(userVerification: true), pinUvAuthParam: [3], pinUvAuthProtocol: 1
    )

    /// Replaces the value of integer key `key` in a request's parameter map.
    static func replacing(_ request: CBORValue, key: Int64, with value: CBORValue?) -> CBORValue {
        var entries = request.mapEntries ?? []
        entries.removeAll { $0.key == .int(key) }
        if let value { entries.append(CBORMapEntry(.int(key), value)) }
        return .map(entries)
    }

    @Test func requestsRoundTrip() throws {
        let make = Self.fullMakeCredential
        #expect(try CTAPRequest(bytes: make.encoded) == .makeCredential(make))
        #expect(try MakeCredentialRequest(cbor: try CBORDecoder.decode(make.encoded.dropFirst())) == make)
        let get = Self.fullGetAssertion
        #expect(try CTAPRequest(bytes: get.encoded) == .getAssertion(get))
        for request in [CTAPRequest.getInfo, .selection, .getNextAssertion] {
            #expect(try CTAPRequest(bytes: request.encoded) == request)
            #expect(request.encoded.count == 1)
        }
        #expect(try CTAPRequest(bytes: [0x06, 0xa0]) == .other(command: .clientPIN, parameters: [0xa0]))
        #expect(try CTAPRequest(bytes: [0x77]) == .other(command: CTAPCommand(rawValue: 0x77), parameters: []))
    }

    @Test func minimalRequestsOmitOptionalKeys() throws {
        let request = GetAssertionRequest(rpID: "a", clientDataHash: Self.hash)
        #expect(request.encoded == [0x02, 0xa2, 0x01, 0x61, 0x61, 0x02, 0x58, 0x20] + Self.hash)
    }

    @Test func responsesRoundTrip() throws {
        let authData = AuthenticatorData(
            rpIDHash: AuthenticatorData.rpIDHash("example.com"), flags: [.userPresent], signCount: 7)
        let assertion = GetAssertionResponse(
            credential: PublicKeyCredentialDescriptor(id: [1, 2]), authenticatorData: authData,
            signature: [0x30, 0x00],
            user: PublicKeyCredentialUserEntity(id: [5], name: "", displayName: ""), numberOfCredentials: 2,
            userSelected: true, largeBlobKey: [4], unsignedExtensionOutputs: ["prf": ["enabled": true]]
        )
        #expect(try GetAssertionResponse(responseBytes: assertion.encodedResponse) == assertion)
        let make = MakeCredentialResponse(
            format: "none", authenticatorData: authData, attestationStatement: .map([]), enterpriseAttestation: false,
            largeBlobKey: [1], unsignedExtensionOutputs: ["prf": ["enabled": true]]
        )
        #expect(try MakeCredentialResponse(responseBytes: make.encodedResponse) == make)
        let info = AuthenticatorGetInfoResponse(
            versions: ["FIDO_2_0", "FIDO_2_1"], extensions: ["prf"], aaguid: [UInt8](repeating: 1, count: 16),
            options: ["rk": true, "up": true, "uv": false, "plat": false], maxMessageSize: 1_048_576,
            pinUvAuthProtocols: [2, 1], maxCredentialCountInList: 8, maxCredentialIDLength: 128,
            transports: ["internal", "hybrid"], algorithms: [PublicKeyCredentialParameters(algorithm: -7)],
            firmwareVersion: 3
        )
        #expect(try AuthenticatorGetInfoResponse(bytes: info.encoded) == info)
        #expect(try AuthenticatorGetInfoResponse(cbor: try CTAPResponse.successBody([0x00] + info.encoded)) == info)
    }

    @Test func responseFraming() throws {
        #expect(CTAPResponse.encode(status: .noCredentials) == [0x2e])
        #expect(try CTAPResponse.decode([0x00]) == (status: CTAPStatusCode.ok, body: nil))
        #expect(throws: CTAPError.errorStatus(.operationDenied)) { try CTAPResponse.successBody([0x27]) }
        #expect(throws: CTAPError.missingParameter(field: "response")) { try CTAPResponse.successBody([0x00]) }
        #expect(throws: CTAPError.emptyMessage) { try CTAPResponse.decode([]) }
        #expect(throws: CTAPError.invalidCBOR(.trailingBytes)) { try CTAPResponse.decode([0x00, 0xa0, 0x00]) }
        #expect(throws: CTAPError.errorStatus(.noCredentials)) { try GetAssertionResponse(responseBytes: [0x2e]) }
    }

    @Test func descriptorTransportsCanBeStripped() {
        let descriptor = PublicKeyCredentialDescriptor(id: [1, 2], transports: ["usb"])
        #expect(descriptor.cbor[textKey: "transports"] == ["usb"])
        #expect(descriptor.withoutTransports.cbor[textKey: "transports"] == nil)
        #expect(
            CBOREncoder.encode(descriptor.withoutTransports.cbor) == [
                0xa2, 0x62, 0x69, 0x64, 0x42, 0x01, 0x02,
                0x64, 0x74, 0x79, 0x70, 0x65, 0x6a,
            ] + Array("public-key".utf8))
    }

    // MARK: strict parsing

    @Test func malformedRequestsGiveTypedErrors() throws {
        let good = Self.fullMakeCredential.cbor
        let cases: [(CBORValue, CTAPError)] = [
            (Self.replacing(good, key: 1, with: nil), .missingParameter(field: "makeCredential.clientDataHash")),
            (Self.replacing(good, key: 1, with: "hash"), .unexpectedType(field: "makeCredential.clientDataHash")),
            (Self.replacing(good, key: 1, with: .bytes([1])), .invalidLength(field: "makeCredential.clientDataHash")),
            (Self.replacing(good, key: 2, with: nil), .missingParameter(field: "makeCredential.rp")),
            (Self.replacing(good, key: 2, with: ["name": "x"]), .missingParameter(field: "makeCredential.rp.id")),
            (Self.replacing(good, key: 2, with: [1, 2]), .unexpectedType(field: "makeCredential.rp")),
            (Self.replacing(good, key: 3, with: ["id": .bytes([])]), .invalidLength(field: "makeCredential.user.id")),
            (
                Self.replacing(good, key: 3, with: ["id": .bytes([UInt8](repeating: 0, count: 65))]),
                .invalidLength(field: "makeCredential.user.id")
            ),
            (
                Self.replacing(good, key: 3, with: ["id": .bytes([1]), "name": 5]),
                .unexpectedType(field: "makeCredential.user.name")
            ),
            (Self.replacing(good, key: 4, with: nil), .missingParameter(field: "makeCredential.pubKeyCredParams")),
            (
                Self.replacing(good, key: 4, with: [["type": "public-key"]]),
                .missingParameter(field: "makeCredential.pubKeyCredParams[0].alg")
            ),
            (
                Self.replacing(good, key: 4, with: [["alg": "-7", "type": "public-key"]]),
                .unexpectedType(field: "makeCredential.pubKeyCredParams[0].alg")
            ),
            (
                Self.replacing(good, key: 5, with: [["type": "public-key"]]),
                .missingParameter(field: "makeCredential.excludeList[0].id")
            ),
            (
                Self.replacing(good, key: 5, with: [.bytes([1])]),
                .unexpectedType(field: "makeCredential.excludeList[0]")
            ),
            (
                Self.replacing(good, key: 5, with: [["id": .bytes([1]), "type": "public-key", "transports": [1]]]),
                .unexpectedType(field: "makeCredential.excludeList[0].transports[0]")
            ),
            (Self.replacing(good, key: 6, with: [1]), .unexpectedType(field: "makeCredential.extensions")),
            (Self.replacing(good, key: 7, with: ["uv": 1]), .unexpectedType(field: "makeCredential.options.uv")),
            (Self.replacing(good, key: 9, with: -1), .invalidParameter(field: "makeCredential.pinUvAuthProtocol")),
        ]
        for (value, error) in cases {
            #expect(throws: error) { try MakeCredentialRequest(cbor: value) }
            // Through the command byte as well, as an authenticator receives it.
            #expect(throws: error) { try CTAPRequest(bytes: [0x01] + CBOREncoder.encode(value)) }
        }
        // Unknown keys and unknown option names are ignored.
        let extended = Self.replacing(
            Self.replacing(good, key: 99, with: "future"), key: 7, with: ["rk": true, "future": 3])
        #expect(try MakeCredentialRequest(cbor: extended).options == CTAPRequestOptions(residentKey: true))
    }

    @Test func malformedGetAssertionGivesTypedErrors() {
        let good = Self.fullGetAssertion.cbor
        #expect(throws: CTAPError.missingParameter(field: "getAssertion.rpId")) {
            try GetAssertionRequest(cbor: Self.replacing(good, key: 1, with: nil))
        }
        #expect(throws: CTAPError.unexpectedType(field: "getAssertion.rpId")) {
            try GetAssertionRequest(cbor: Self.replacing(good, key: 1, with: .bytes([])))
        }
        #expect(throws: CTAPError.invalidLength(field: "getAssertion.clientDataHash")) {
            try GetAssertionRequest(cbor: Self.replacing(good, key: 2, with: .bytes([UInt8](repeating: 0, count: 33))))
        }
        #expect(throws: CTAPError.unexpectedType(field: "getAssertion.allowList")) {
            try GetAssertionRequest(cbor: Self.replacing(good, key: 3, with: ["a": 1]))
        }
        #expect(throws: CTAPError.unexpectedType(field: "getAssertion.options")) {
            try GetAssertionRequest(cbor: Self.replacing(good, key: 5, with: true))
        }
        #expect(throws: CTAPError.unexpectedType(field: "getAssertion")) { try GetAssertionRequest(cbor: [1, 2]) }
    }

    @Test func malformedFramesGiveTypedErrors() {
        #expect(throws: CTAPError.emptyMessage) { try CTAPRequest(bytes: []) }
        #expect(throws: CTAPError.missingParameter(field: "makeCredential")) { try CTAPRequest(bytes: [0x01]) }
        #expect(throws: CTAPError.unexpectedParameters(command: .getInfo)) { try CTAPRequest(bytes: [0x04, 0xa0]) }
        #expect(throws: CTAPError.unexpectedParameters(command: .selection)) { try CTAPRequest(bytes: [0x0b, 0x00]) }
        // Unsorted keys {2: …, 1: …}, trailing bytes, indefinite map.
        #expect(throws: CTAPError.invalidCBOR(.unsortedKeys)) {
            try CTAPRequest(bytes: [0x02, 0xa2, 0x02, 0x40, 0x01, 0x60])
        }
        #expect(throws: CTAPError.invalidCBOR(.trailingBytes)) { try CTAPRequest(bytes: [0x02, 0xa0, 0x00]) }
        #expect(throws: CTAPError.invalidCBOR(.indefiniteLength)) { try CTAPRequest(bytes: [0x02, 0xbf, 0xff]) }
    }

    @Test func malformedGetInfoGivesTypedErrors() {
        let aaguid = CBORValue.bytes([UInt8](repeating: 0, count: 16))
        #expect(throws: CTAPError.missingParameter(field: "getInfo.versions")) {
            try AuthenticatorGetInfoResponse(cbor: [3: aaguid])
        }
        #expect(throws: CTAPError.missingParameter(field: "getInfo.aaguid")) {
            try AuthenticatorGetInfoResponse(cbor: [1: ["FIDO_2_0"]])
        }
        #expect(throws: CTAPError.invalidLength(field: "getInfo.aaguid")) {
            try AuthenticatorGetInfoResponse(cbor: [1: ["FIDO_2_0"], 3: .bytes([0])])
        }
        #expect(throws: CTAPError.unexpectedType(field: "getInfo.options.rk")) {
            try AuthenticatorGetInfoResponse(cbor: [1: ["FIDO_2_0"], 3: aaguid, 4: ["rk": 1]])
        }
        #expect(throws: CTAPError.unexpectedType(field: "getInfo.versions[1]")) {
            try AuthenticatorGetInfoResponse(cbor: [1: ["FIDO_2_0", 2], 3: aaguid])
        }
        #expect(throws: CTAPError.unexpectedType(field: "getInfo.transports")) {
            try AuthenticatorGetInfoResponse(cbor: [1: ["FIDO_2_0"], 3: aaguid, 9: "hybrid"])
        }
    }

    @Test func errorsMapToStatusCodes() {
        #expect(CTAPError.invalidCBOR(.truncated).statusCode == .invalidCBOR)
        #expect(CTAPError.unexpectedType(field: "x").statusCode.rawValue == 0x11)
        #expect(CTAPError.invalidCBOR(.tag).statusCode.rawValue == 0x12)
        #expect(CTAPError.missingParameter(field: "x").statusCode.rawValue == 0x14)
        #expect(CTAPError.invalidParameter(field: "x").statusCode.rawValue == 0x02)
        #expect(CTAPError.invalidLength(field: "x").statusCode.rawValue == 0x03)
        #expect(CTAPError.unsupportedAlgorithm(field: "x").statusCode.rawValue == 0x26)
        #expect(CTAPError.errorStatus(.noCredentials).statusCode == .noCredentials)
    }

    @Test func statusCodesHaveNamesAndMessages() {
        let expected: [(CTAPStatusCode, UInt8, String)] = [
            (.ok, 0x00, "CTAP2_OK"), (.invalidCommand, 0x01, "CTAP1_ERR_INVALID_COMMAND"),
            (.invalidParameter, 0x02, "CTAP1_ERR_INVALID_PARAMETER"),
            (.cborUnexpectedType, 0x11, "CTAP2_ERR_CBOR_UNEXPECTED_TYPE"),
            (.invalidCBOR, 0x12, "CTAP2_ERR_INVALID_CBOR"), (.missingParameter, 0x14, "CTAP2_ERR_MISSING_PARAMETER"),
            (.credentialExcluded, 0x19, "CTAP2_ERR_CREDENTIAL_EXCLUDED"),
            (.unsupportedAlgorithm, 0x26, "CTAP2_ERR_UNSUPPORTED_ALGORITHM"),
            (.operationDenied, 0x27, "CTAP2_ERR_OPERATION_DENIED"),
            (.unsupportedOption, 0x2B, "CTAP2_ERR_UNSUPPORTED_OPTION"),
            (.invalidOption, 0x2C, "CTAP2_ERR_INVALID_OPTION"), (.noCredentials, 0x2E, "CTAP2_ERR_NO_CREDENTIALS"),
            (.userActionTimeout, 0x2F, "CTAP2_ERR_USER_ACTION_TIMEOUT"), (.notAllowed, 0x30, "CTAP2_ERR_NOT_ALLOWED"),
            (.pinInvalid, 0x31, "CTAP2_ERR_PIN_INVALID"), (.pinUvAuthTokenRequired, 0x36, "CTAP2_ERR_PUAT_REQUIRED"),
            (.userVerificationInvalid, 0x3F, "CTAP2_ERR_UV_INVALID"), (.other, 0x7F, "CTAP1_ERR_OTHER"),
        ]
        for (code, raw, name) in expected {
            #expect(code.rawValue == raw)
            #expect(code.name == name)
            #expect(!code.message.isEmpty)
        }
        #expect(
            CTAPStatusCode.noCredentials.description
                == "0x2e CTAP2_ERR_NO_CREDENTIALS: No valid credentials were provided or found.")
        #expect(CTAPStatusCode(rawValue: 0xF3).name == nil)
        #expect(CTAPStatusCode(rawValue: 0xF3).message == "Vendor-specific error.")
        #expect(CTAPCommand.selection.rawValue == 0x0B && CTAPCommand.getNextAssertion.rawValue == 0x08)
        #expect(CTAPCommand(rawValue: 0x99).name == nil)
    }

    /// Random and mutated input never crashes a parser; it parses or throws a CTAPError.
    @Test func mutatedRequestsNeverCrash() {
        var rng = SeededRandom.forProperty()
        let seeds = [Self.fullMakeCredential.encoded, Self.fullGetAssertion.encoded]
        var requests = ParseTally()
        var responses = ParseTally()
        for _ in 0..<3000 {
            var bytes = seeds[Int.random(in: 0..<seeds.count, using: &rng)]
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                case 1: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)))
                default:
                    bytes.insert(
                        UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0...bytes.count, using: &rng))
                }
                if bytes.isEmpty { break }
            }
            // A parsed request survives its own encoding (unknown keys are dropped, so not byte for byte).
            requests.record(CTAPError.self, { () throws(CTAPError) in try CTAPRequest(bytes: bytes) }) { request in
                #expect((try? CTAPRequest(bytes: request.encoded)) == request, "\(Hex.encode(bytes))")
            }
            responses.record(CTAPError.self, { () throws(CTAPError) in try GetAssertionResponse(responseBytes: bytes) })
            responses.record(
                CTAPError.self, { () throws(CTAPError) in try MakeCredentialResponse(responseBytes: bytes) })
        }
        #expect(requests.values > 0 && requests.errors > 0)
        #expect(responses.errors > 0)
    }
}
