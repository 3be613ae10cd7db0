import HybridCore

/// `hkdf` (SCHEMA.md §4.3): `Derive(secret, salt, purpose, length)`.
struct HKDFChecker: VectorKindChecker {
    let kind = "hkdf"
    let definesInvalidCases = false

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let rawPurpose = try testCase.int("purpose")
        guard let purpose = UInt32(exactly: rawPurpose).flatMap(KeyPurpose.init(rawValue:)) else {
            throw VectorMismatch("purpose \(rawPurpose) is not a known KeyPurpose")
        }
        let output = KeyDerivation.derive(
            from: try testCase.bytes("secret"),
            salt: try testCase.optionalBytes("salt"),
            purpose: purpose,
            byteCount: try testCase.int("length")
        )
        try Expect.bytes("output", output, try testCase.bytes("output"))
    }
}
