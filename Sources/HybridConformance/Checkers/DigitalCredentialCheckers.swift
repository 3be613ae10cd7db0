import HybridCore

/// `dcRequest` (SCHEMA.md §4.23): the client's JSON request (message type 03) → origin, request
/// type and entries; a `canonical` envelope is also what the encoder writes for them.
struct DigitalCredentialRequestChecker: VectorKindChecker {
    let kind = "dcRequest"

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let bytes = Array(try testCase.string("envelope").utf8)
        guard testCase.valid else {
            try Expect.failure(testCase, "decode", classify: vectorErrorClass(of:)) {
                _ = try DigitalCredentialRequestEnvelope(decoding: bytes)
            }
            return
        }
        let envelope = try Expect.success("decode", classify: vectorErrorClass(of:)) {
            try DigitalCredentialRequestEnvelope(decoding: bytes)
        }
        try Expect.equal("origin", envelope.origin, try testCase.string("origin"))
        try Expect.equal("requestType", envelope.requestType, try testCase.string("requestType"))
        guard case .array(let expected) = try testCase.value("requests") else {
            throw VectorMismatch("requests is not an array")
        }
        try Expect.equal("requests.count", envelope.requests.count, expected.count)
        for (entry, want) in zip(envelope.requests, expected) {
            guard case .object(let fields) = want, case .string(let protocolID)? = fields["protocol"],
                case .string(let data)? = fields["data"]
            else { throw VectorMismatch("a requests entry lacks protocol or data") }
            try Expect.equal("protocol", entry.protocolID, protocolID)
            try Expect.equal("data", String(decoding: entry.data, as: UTF8.self), data)
        }
        let rebuilt = try Expect.success("encode", classify: vectorErrorClass(of:)) {
            try DigitalCredentialRequestEnvelope(origin: envelope.origin, digital: envelope.digital).encoded
        }
        if try testCase.bool("canonical") {
            try Expect.equal("encoded", String(decoding: rebuilt, as: UTF8.self), try testCase.string("envelope"))
        }
    }
}

/// `dcResponse` (SCHEMA.md §4.24): the phone's JSON answer → a credential (protocol, data) or an
/// error string; a `canonical` answer is also what the encoder writes for it.
struct DigitalCredentialResponseChecker: VectorKindChecker {
    let kind = "dcResponse"

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let bytes = Array(try testCase.string("response").utf8)
        guard testCase.valid else {
            try Expect.failure(testCase, "decode", classify: vectorErrorClass(of:)) {
                _ = try DigitalCredentialResponseEnvelope(decoding: bytes)
            }
            return
        }
        let response = try Expect.success("decode", classify: vectorErrorClass(of:)) {
            try DigitalCredentialResponseEnvelope(decoding: bytes)
        }
        switch (response, try testCase.string("result")) {
        case (.credential(let protocolID, let data), "credential"):
            try Expect.equal("protocol", protocolID, try testCase.optionalString("protocol"))
            try Expect.equal("data", String(decoding: data, as: UTF8.self), try testCase.string("data"))
        case (.error(let code), "error"):
            try Expect.equal("code", code, try testCase.string("code"))
        case (let got, let want):
            throw .field("result", expected: want, got: "\(got)")
        }
        let encoded = try Expect.success("encode", classify: vectorErrorClass(of:)) { try response.encoded() }
        if try testCase.bool("canonical") {
            try Expect.equal("encoded", String(decoding: encoded, as: UTF8.self), try testCase.string("response"))
        }
    }
}
