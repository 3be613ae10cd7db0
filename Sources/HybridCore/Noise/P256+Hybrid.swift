import Crypto

extension P256.KeyAgreement.PublicKey {
    /// Length of the uncompressed X9.62 form, `04 || X || Y`.
    static let uncompressedByteCount = 65

    /// The 65-byte uncompressed form used on the wire and in the Noise hash.
    var uncompressedBytes: [UInt8] { Array(x963Representation) }

    /// Parses exactly 65 bytes `04 || X || Y` of a point on the curve, or returns `nil`.
    init?(uncompressedBytes bytes: some Collection<UInt8>) {
        let raw = Array(bytes)
        guard raw.count == Self.uncompressedByteCount, raw[0] == 0x04,
            let key = try? Self(x963Representation: raw)
        else { return nil }
        self = key
    }
}

extension P256.KeyAgreement.PrivateKey {
    /// A key whose scalar is 32 bytes from `randomBytes`, drawn again in the rare case (about
    /// 2^-32) that they are zero or not below the group order, so the scalar is uniform. Four times
    /// cheaper than `init()`, which also runs a FIPS pairwise consistency test (an ECDSA signature)
    /// on every key: worth it for the fresh ephemeral key of every handshake.
    ///
    /// - Returns: `nil` if `randomBytes` gave no valid scalar in 16 tries (a broken source).
    package init?(scalarFrom randomBytes: (_ count: Int) -> [UInt8]) {
        for _ in 0..<16 {
            if let key = try? Self(rawRepresentation: randomBytes(32)) {
                self = key
                return
            }
        }
        return nil
    }

    /// ECDH with `peer`: the 32-byte X coordinate of the shared point.
    func sharedXCoordinate(with peer: P256.KeyAgreement.PublicKey) -> [UInt8] {
        do {
            return try sharedSecretFromKeyAgreement(with: peer).withUnsafeBytes { Array($0) }
        } catch {
            preconditionFailure("P-256 ECDH between validated keys cannot fail")
        }
    }
}
