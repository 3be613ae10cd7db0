import HybridCore

/// `digits` (SCHEMA.md §4.1): bytes ⇄ `FIDO:/` digits, both directions; invalid strings rejected.
struct DigitsChecker: VectorKindChecker {
    let kind = "digits"

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let digits = try testCase.string("digits")
        guard testCase.valid else {
            try Expect.failure(testCase, "decode", classify: vectorErrorClass(of:)) {
                _ = try DigitEncoding.decode(digits)
            }
            return
        }
        let bytes = try testCase.bytes("bytes")
        try Expect.equal("encode", DigitEncoding.encode(bytes), digits)
        let decoded = try Expect.success("decode", classify: vectorErrorClass(of:)) { try DigitEncoding.decode(digits) }
        try Expect.bytes("decode", decoded, bytes)
    }
}
