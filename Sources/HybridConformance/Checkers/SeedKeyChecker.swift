import HybridCore

/// `seedKey` (SCHEMA.md §4.4): BoringSSL `EC_KEY_derive_from_secret` for P-256.
struct SeedKeyChecker: VectorKindChecker {
    let kind = "seedKey"
    let definesInvalidCases = false

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let seed = try testCase.bytes("seed")
        try Expect.bytes(
            "privateKey",
            IdentityKeyDerivation.privateScalar(fromSeed: seed),
            try testCase.bytes("privateKey")
        )
        let publicKey = IdentityKeyDerivation.privateKey(fromSeed: seed).publicKey
        try Expect.bytes("publicKey", Array(publicKey.x963Representation), try testCase.bytes("publicKey"))
        try Expect.bytes(
            "publicKeyCompressed",
            Array(publicKey.compressedRepresentation),
            try testCase.bytes("publicKeyCompressed")
        )
    }
}
