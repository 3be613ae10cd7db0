import HybridCore

/// `padding` (SCHEMA.md §4.15). Scheme `crypter32` is the transport padding; the revision-0
/// `cbor16` / `cbor8` schemes need the CBOR layer and are not implemented here yet.
struct PaddingChecker: VectorKindChecker {
    let kind = "padding"

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let scheme = try testCase.string("scheme")
        guard scheme == "crypter32" else {
            if scheme == "cbor16" || scheme == "cbor8" { throw VectorMismatch("cbor padding not implemented") }
            throw VectorMismatch("unknown padding scheme \(scheme)")
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
}
