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
    /// The generator of a property test: seeded from `HYBRID_TEST_SEED` if set, else afresh, and the
    /// seed is printed so that a failure can be replayed.
    static func forProperty(_ test: String = #function) -> SeededRandom {
        let seed =
            ProcessInfo.processInfo.environment["HYBRID_TEST_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: .min ... .max)
        print("\(test): seed \(seed) (HYBRID_TEST_SEED=\(seed) replays it)")
        return SeededRandom(seed: seed)
    }

    /// Between `range.lowerBound` and `range.upperBound` random bytes.
    mutating func bytes(in range: ClosedRange<Int>) -> [UInt8] { bytes(Int.random(in: range, using: &self)) }

    /// Random UTF-8 bytes decoded leniently: any text, including replacement characters.
    mutating func text(in range: ClosedRange<Int>) -> String { String(decoding: bytes(in: range), as: UTF8.self) }
}

/// What a parser gave for random inputs: every input must give a value or the parser's typed error.
/// The tally checks that both kinds were seen, so that a test cannot pass by never reaching a parser.
struct ParseTally {
    var values = 0
    var errors = 0

    /// Parses with `parse`, which can throw only `errorType` (the compiler checks it); a value is
    /// checked by `check`, an error is counted.
    @discardableResult
    mutating func record<T, E: Error>(
        _ errorType: E.Type, _ parse: () throws(E) -> T, check: (T) -> Void = { _ in }
    ) -> T? {
        switch Result(catching: parse) {
        case .success(let value):
            values += 1
            check(value)
            return value
        case .failure:
            errors += 1
            return nil
        }
    }
}
