import Crypto

/// `rpIdHash` (SCHEMA.md §4.13): SHA-256 of the UTF-8 RP ID.
struct RPIDHashChecker: VectorKindChecker {
    let kind = "rpIdHash"
    let definesInvalidCases = false

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let rpID = try testCase.string("rpID")
        try Expect.bytes("hash", Array(SHA256.hash(data: Array(rpID.utf8))), try testCase.bytes("hash"))
    }
}
