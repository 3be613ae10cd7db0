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
    /// ECDH with `peer`: the 32-byte X coordinate of the shared point.
    func sharedXCoordinate(with peer: P256.KeyAgreement.PublicKey) -> [UInt8] {
        do {
            return try sharedSecretFromKeyAgreement(with: peer).withUnsafeBytes { Array($0) }
        } catch {
            preconditionFailure("P-256 ECDH between validated keys cannot fail")
        }
    }
}
