import Foundation

/// A source of random bytes, injectable so tests can pin keys and credential IDs.
public struct RandomSource: Sendable {
    /// Returns `count` random bytes.
    public let bytes: @Sendable (_ count: Int) -> [UInt8]

    public init(_ bytes: @escaping @Sendable (_ count: Int) -> [UInt8]) { self.bytes = bytes }

    /// The operating system's cryptographically secure generator.
    public static let system = RandomSource { count in
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

/// What the authenticator takes from the outside world: randomness and the clock.
public struct AuthenticatorEnvironment: Sendable {
    public var random: RandomSource
    public var now: @Sendable () -> Date

    public init(random: RandomSource = .system, now: @escaping @Sendable () -> Date = { Date() }) {
        self.random = random
        self.now = now
    }

    public static let system = AuthenticatorEnvironment()
}
