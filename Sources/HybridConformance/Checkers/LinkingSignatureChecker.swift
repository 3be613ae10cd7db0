import HybridCore

/// `linkingSignature` (SCHEMA.md §4.20): HMAC over the handshake hash keyed by ECDH of the identities.
struct LinkingSignatureChecker: VectorKindChecker {
    let kind = "linkingSignature"

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        for (seed, privateKey) in [
            ("authenticatorSeed", "authenticatorPrivateKey"), ("clientSeed", "clientPrivateKey"),
        ] {
            if let seedBytes = try testCase.optionalBytes(seed) {
                try Expect.bytes(
                    "\(privateKey) from \(seed)",
                    IdentityKeyDerivation.privateScalar(fromSeed: seedBytes),
                    try testCase.bytes(privateKey)
                )
            }
        }
        try testCase.expectKeyPair(private: "authenticatorPrivateKey", public: "authenticatorPublicKey")
        try testCase.expectKeyPair(private: "clientPrivateKey", public: "clientPublicKey")

        let authenticatorPrivate = try testCase.privateKey("authenticatorPrivateKey")
        let authenticatorPublic = try testCase.publicKey("authenticatorPublicKey")
        let clientPrivate = try testCase.privateKey("clientPrivateKey")
        let clientPublic = try testCase.publicKey("clientPublicKey")
        let handshakeHash = try testCase.bytes("handshakeHash")
        let signature = try testCase.bytes("signature")

        guard testCase.valid else {
            try Expect.failure(testCase, "verify", classify: vectorErrorClass(of:)) {
                try LinkingSignature.verify(
                    signature,
                    privateKey: clientPrivate,
                    peerPublicKey: authenticatorPublic,
                    handshakeHash: handshakeHash
                )
            }
            return
        }
        let signed = LinkingSignature.compute(
            privateKey: authenticatorPrivate,
            peerPublicKey: clientPublic,
            handshakeHash: handshakeHash
        )
        try Expect.bytes("signature (authenticator side)", signed, signature)
        let mirrored = LinkingSignature.compute(
            privateKey: clientPrivate,
            peerPublicKey: authenticatorPublic,
            handshakeHash: handshakeHash
        )
        try Expect.bytes("signature (client side)", mirrored, signature)
        try Expect.success("verify", classify: vectorErrorClass(of:)) {
            try LinkingSignature.verify(
                signature,
                privateKey: clientPrivate,
                peerPublicKey: authenticatorPublic,
                handshakeHash: handshakeHash
            )
        }
    }
}
