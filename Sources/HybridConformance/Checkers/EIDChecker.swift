import HybridCore

/// `eid` (SCHEMA.md §4.5): advert decryption, and encryption for valid cases.
struct EIDChecker: VectorKindChecker {
    let kind = "eid"

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let keyBytes = try testCase.bytes("eidKey")
        guard let key = EIDKey(bytes: keyBytes) else { throw VectorMismatch("eidKey is not 64 bytes") }
        try checkProvenance(testCase, keyBytes: keyBytes)
        let advert = try testCase.bytes("advert")

        guard testCase.valid else {
            try Expect.failure(testCase, "decrypt", classify: vectorErrorClass(of:)) { _ = try key.decrypt(advert) }
            if key.trialDecrypt(advert) != nil { throw VectorMismatch("trialDecrypt accepted an invalid advert") }
            if let plaintext = try testCase.optionalBytes("plaintext") {
                let block = try Expect.success("decryptBlock", classify: vectorErrorClass(of:)) {
                    try key.decryptBlock(advert)
                }
                try Expect.bytes("plaintext", block, plaintext)
            }
            return
        }
        let decrypted = try Expect.success("decrypt", classify: vectorErrorClass(of:)) { try key.decrypt(advert) }
        try Expect.bytes("plaintext", decrypted.bytes, try testCase.bytes("plaintext"))
        try Expect.bytes("nonce", decrypted.nonce.bytes, try testCase.bytes("nonce"))
        try Expect.bytes("routingID", decrypted.routingID.bytes, try testCase.bytes("routingID"))
        try Expect.equal("domainID", Int(decrypted.domainID.rawValue), try testCase.int("domainID"))
        try Expect.bytes("encrypt", key.encrypt(decrypted), advert)
        try Expect.equal("trialDecrypt", key.trialDecrypt(advert), decrypted)
    }

    /// The optional inputs the key was derived from must give the same key.
    private func checkProvenance(_ testCase: VectorCase, keyBytes: [UInt8]) throws(VectorMismatch) {
        if let secretBytes = try testCase.optionalBytes("qrSecret") {
            guard let secret = QRSecret(bytes: secretBytes) else { throw VectorMismatch("qrSecret is not 16 bytes") }
            try Expect.bytes("eidKey from qrSecret", secret.eidKey.bytes, keyBytes)
        }
        if let linkSecret = try testCase.optionalBytes("linkSecret") {
            let derived = EIDKey(deriving: linkSecret, salt: try testCase.bytes("clientNonce"))
            try Expect.bytes("eidKey from linkSecret", derived.bytes, keyBytes)
        }
    }
}
