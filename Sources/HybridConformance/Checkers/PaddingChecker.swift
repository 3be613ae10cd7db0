import HybridCore

/// `padding` (SCHEMA.md §4.15). Scheme `crypter32` is the transport padding; `cbor16` / `cbor8`
/// are the revision-0 padded CBOR maps (``RevisionZeroPadding``).
struct PaddingChecker: VectorKindChecker {
    let kind = "padding"

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let scheme = try testCase.string("scheme")
        guard scheme == "crypter32" else {
            switch scheme {
            case "cbor16": return try checkRevisionZero(testCase, trailer: .sixteenBit)
            case "cbor8": return try checkRevisionZero(testCase, trailer: .eightBit)
            default: throw VectorMismatch("unknown padding scheme \(scheme)")
            }
        }
        let padded = try testCase.bytes("padded")
        guard testCase.valid else {
            try Expect.failure(testCase, "unpad", classify: vectorErrorClass(of:)) {
                _ = try TransportPadding.unpad(padded)
            }
            return
        }
        let message = try testCase.bytes("message")
        let unpadded = try Expect.success("unpad", classify: vectorErrorClass(of:)) {
            try TransportPadding.unpad(padded)
        }
        try Expect.bytes("unpad", unpadded, message)
        switch try testCase.string("direction") {
        case "both": try Expect.bytes("pad", TransportPadding.pad(message), padded)
        case "decode": break
        case let other: throw VectorMismatch("unknown direction \(other)")
        }
    }

    /// The revision-0 decoder tries the 16-bit trailer, then the 8-bit one, whatever the scheme.
    private func checkRevisionZero(_ testCase: VectorCase, trailer: RevisionZeroPadding.Trailer) throws(VectorMismatch)
    {
        let padded = try testCase.bytes("padded")
        guard testCase.valid else {
            try Expect.failure(testCase, "unpad", classify: vectorErrorClass(of:)) {
                _ = try RevisionZeroPadding.unpad(padded)
            }
            return
        }
        let message = try testCase.bytes("message")
        let unpadded = try Expect.success("unpad", classify: vectorErrorClass(of:)) {
            try RevisionZeroPadding.unpad(padded)
        }
        try Expect.bytes("unpad", unpadded.bytes, message)
        switch try testCase.string("direction") {
        case "both": try Expect.bytes("pad", RevisionZeroPadding.pad(message, trailer: trailer), padded)
        case "decode": break
        case let other: throw VectorMismatch("unknown direction \(other)")
        }
    }
}
