import Crypto
import HybridCore

/// A deterministic SplitMix64 generator, so that "random" test inputs are reproducible.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) }
    }

    /// A random P-256 key (derived from 32 random bytes, so it is reproducible too).
    mutating func p256Key() -> P256.KeyAgreement.PrivateKey {
        IdentityKeyDerivation.privateKey(fromSeed: bytes(32))
    }

    /// A random 32-byte symmetric key.
    mutating func symmetricKey() -> SymmetricKey { SymmetricKey(data: bytes(32)) }
}

/// `bytes` with bit `bit` (0 = least significant bit of byte 0) inverted.
func flippingBit(_ bit: Int, of bytes: [UInt8]) -> [UInt8] {
    var copy = bytes
    copy[bit / 8] ^= 1 << UInt8(bit % 8)
    return copy
}
