import HybridCore

/// `crypter` (SCHEMA.md §4.16): single-message transport encryption, both directions.
struct CrypterChecker: VectorKindChecker {
    let kind = "crypter"

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let key = try testCase.symmetricKey("key")
        let rawSequence = try testCase.int("seq")
        guard rawSequence >= 0 else { throw VectorMismatch("seq is negative") }
        let sequence = UInt32(clamping: rawSequence)  // anything above UInt32.max is out of range anyway
        let construction: TransportCrypter.Construction
        switch try testCase.string("construction") {
        case "new": construction = .new
        case "old": construction = .old
        case let other: throw VectorMismatch("unknown construction \(other)")
        }
        let plaintext = try testCase.optionalBytes("plaintext")
        let ciphertext = try testCase.optionalBytes("ciphertext")

        guard testCase.valid else {
            guard plaintext != nil || ciphertext != nil else { throw VectorMismatch("invalid case has no input") }
            if let ciphertext {
                try Expect.failure(testCase, "open", classify: vectorErrorClass(of:)) {
                    _ = try TransportCrypter.open(ciphertext, key: key, sequence: sequence, construction: construction)
                }
            }
            if let plaintext {
                try Expect.failure(testCase, "seal", classify: vectorErrorClass(of:)) {
                    _ = try TransportCrypter.seal(plaintext, key: key, sequence: sequence, construction: construction)
                }
            }
            return
        }
        guard let plaintext, let ciphertext else { throw VectorMismatch("valid case needs plaintext and ciphertext") }
        let sealed = try Expect.success("seal", classify: vectorErrorClass(of:)) {
            try TransportCrypter.seal(plaintext, key: key, sequence: sequence, construction: construction)
        }
        try Expect.bytes("ciphertext", sealed, ciphertext)
        let opened = try Expect.success("open", classify: vectorErrorClass(of:)) {
            try TransportCrypter.open(ciphertext, key: key, sequence: sequence, construction: construction)
        }
        try Expect.bytes("plaintext", opened, plaintext)
    }
}
