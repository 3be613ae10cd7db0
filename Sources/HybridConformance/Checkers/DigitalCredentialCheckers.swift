import HybridCore

/// `dcRequest` (SCHEMA.md §4.23) and `dcResponse` (§4.24): the JSON messages of type 03.
struct DigitalCredentialChecker: VectorKindChecker {
    /// `dcRequest` or `dcResponse`.
    let kind: String

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        if kind == "dcRequest" { try checkRequest(testCase) } else { try checkResponse(testCase) }
    }

    /// The client's request → origin, request type and entries; a `canonical` envelope is also
    /// what the encoder writes for them.
    private func checkRequest(_ testCase: VectorCase) throws(VectorMismatch) {
        let bytes = Array(try testCase.string("envelope").utf8)
        guard let envelope = try decoded(testCase, { try DigitalCredentialRequestEnvelope(decoding: bytes) }) else {
            return
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

    /// The phone's answer → a credential (protocol, data) or an error string; a `canonical`
    /// answer is also what the encoder writes for it.
    private func checkResponse(_ testCase: VectorCase) throws(VectorMismatch) {
        let bytes = Array(try testCase.string("response").utf8)
        guard let response = try decoded(testCase, { try DigitalCredentialResponseEnvelope(decoding: bytes) }) else {
            return
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

/// What `decode` gives for a valid case; for an invalid one, checks that it is rejected with an
/// acceptable error class and returns `nil`.
private func decoded<T>(_ testCase: VectorCase, _ decode: () throws -> T) throws(VectorMismatch) -> T? {
    guard testCase.valid else {
        try Expect.failure(testCase, "decode", classify: vectorErrorClass(of:)) { _ = try decode() }
        return nil
    }
    return try Expect.success("decode", classify: vectorErrorClass(of:), decode)
}
