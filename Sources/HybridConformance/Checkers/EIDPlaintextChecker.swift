import HybridCore

/// `eidPlaintext` (SCHEMA.md §4.6): the 16-byte EID plaintext ⇄ its components.
struct EIDPlaintextChecker: VectorKindChecker {
    let kind = "eidPlaintext"

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let bytes = try testCase.bytes("plaintext")
        guard testCase.valid else {
            try Expect.failure(testCase, "parse", classify: vectorErrorClass(of:)) {
                _ = try AdvertPlaintext(bytes: bytes)
            }
            return
        }
        let parsed = try Expect.success("parse", classify: vectorErrorClass(of:)) { try AdvertPlaintext(bytes: bytes) }
        let nonce = try testCase.bytes("nonce")
        let routingID = try testCase.bytes("routingID")
        let domainID = try testCase.int("domainID")
        try Expect.bytes("nonce", parsed.nonce.bytes, nonce)
        try Expect.bytes("routingID", parsed.routingID.bytes, routingID)
        try Expect.equal("domainID", Int(parsed.domainID.rawValue), domainID)

        guard let typedNonce = AdvertNonce(bytes: nonce), let typedRoutingID = RoutingID(bytes: routingID),
            let typedDomain = UInt16(exactly: domainID).flatMap(TunnelDomainID.init(rawValue:))
        else { throw VectorMismatch("components of a valid case do not form a plaintext") }
        let built = AdvertPlaintext(nonce: typedNonce, routingID: typedRoutingID, domainID: typedDomain)
        try Expect.bytes("plaintext from components", built.bytes, bytes)
    }
}
