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
        let length = try testCase.int("length")
        guard KeyDerivation.byteCountRange.contains(length) else {
            throw VectorMismatch("length \(length) is outside HKDF-SHA256's \(KeyDerivation.byteCountRange)")
        }
        let output = KeyDerivation.derive(
            from: try testCase.bytes("secret"),
            salt: try testCase.optionalBytes("salt"),
            purpose: purpose,
            byteCount: length
        )
        try Expect.bytes("output", output, try testCase.bytes("output"))
    }
}
