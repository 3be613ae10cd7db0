import HybridCore

/// `clientPayload` (SCHEMA.md §4.11): the `X-caBLE-Client-Payload` CBOR and header, both directions.
struct ClientPayloadChecker: VectorKindChecker {
    let kind = "clientPayload"
    let definesInvalidCases = false

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let pairingID = try testCase.bytes("pairingID")
        let clientNonce = try testCase.bytes("clientNonce")
        let hint = try testCase.string("requestType")
        guard clientNonce.count == ClientPayload.clientNonceByteCount else {
            throw VectorMismatch("clientNonce is not 16 bytes")
        }
        let requestType = HybridRequestType(hint: hint)
        try Expect.equal("requestType round trip", requestType.hint, hint)
        let payload = ClientPayload(pairingID: pairingID, clientNonce: clientNonce, requestType: requestType)
        let header = try testCase.string("header")
        try Expect.bytes("cbor", payload.cbor, try testCase.bytes("cbor"))
        try Expect.equal("header", payload.headerValue, header)
        let parsed = try Expect.success("parse header", classify: vectorErrorClass(of:)) {
            try ClientPayload(headerValue: header)
        }
        try Expect.equal("parsed", parsed, payload)
    }
}
