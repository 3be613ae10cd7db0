import Crypto
import Foundation
import HybridCore
import TestSeededRandom

extension SeededRandom {
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

    /// A random 16-byte QR secret.
    mutating func secret() -> QRSecret {
        guard let secret = QRSecret(bytes: bytes(16)) else { preconditionFailure("16 bytes") }
        return secret
    }

    /// Up to `maxLength` characters drawn from ASCII, accented, CJK and emoji ones.
    mutating func text(maxLength: Int) -> String {
        let alphabet = Array("aZ 9é水🔑")
        let count = Int.random(in: 0...maxLength, using: &self)
        return String((0..<count).map { _ in alphabet.randomElement(using: &self) ?? "a" })
    }
}

/// `bytes` with bit `bit` (0 = least significant bit of byte 0) inverted.
func flippingBit(_ bit: Int, of bytes: [UInt8]) -> [UInt8] {
    var copy = bytes
    copy[bit / 8] ^= 1 << UInt8(bit % 8)
    return copy
}

extension SeededRandom {
    /// Between `range.lowerBound` and `range.upperBound` random bytes.
    mutating func bytes(in range: ClosedRange<Int>) -> [UInt8] { bytes(Int.random(in: range, using: &self)) }

    /// Random UTF-8 bytes decoded leniently: any text, including replacement characters.
    mutating func text(in range: ClosedRange<Int>) -> String { String(decoding: bytes(in: range), as: UTF8.self) }
}
