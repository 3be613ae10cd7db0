import Foundation

extension SeededRandom {
    /// The generator of a property test: seeded from `HYBRID_TEST_SEED` if set, else afresh, and the
    /// seed is printed so that a failure can be replayed.
    package static func forProperty(_ test: String = #function) -> SeededRandom {
        let seed =
            ProcessInfo.processInfo.environment["HYBRID_TEST_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: .min ... .max)
        print("\(test): seed \(seed) (HYBRID_TEST_SEED=\(seed) replays it)")
        return SeededRandom(seed: seed)
    }
}
