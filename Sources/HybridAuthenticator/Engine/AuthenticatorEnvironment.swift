import Crypto
import Foundation

/// A source of random bytes, injectable so tests can pin keys and credential IDs.
public struct RandomSource: Sendable {
    /// Returns `count` random bytes.
    public let bytes: @Sendable (_ count: Int) -> [UInt8]

    /// A source that calls `bytes` for each request.
    public init(_ bytes: @escaping @Sendable (_ count: Int) -> [UInt8]) { self.bytes = bytes }

    /// BoringSSL's CSPRNG (seeded by the kernel), through swift-crypto: one call per request
    /// rather than a system call per byte.
    public static let system = RandomSource { count in
        guard count > 0 else { return [] }
        return SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
    }
}

/// What the authenticator takes from the outside world: randomness and the clock.
public struct AuthenticatorEnvironment: Sendable {
    /// Where keys, credential IDs and secrets come from.
    public var random: RandomSource
    /// The clock, for creation times.
    public var now: @Sendable () -> Date

    /// An environment; the defaults are the system's.
    public init(random: RandomSource = .system, now: @escaping @Sendable () -> Date = { Date() }) {
        self.random = random
        self.now = now
    }

    /// The system's CSPRNG and clock.
    public static let system = AuthenticatorEnvironment()
}
