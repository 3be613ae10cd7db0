/// A deterministic SplitMix64 generator, so that "random" test inputs are reproducible: the same
/// seed gives the same sequence on every platform and run.
///
/// Randomized tests draw their inputs from one of these and print the seed they used (a fresh one
/// per run, or a fixed one), so that a failure can be replayed with that seed.
package struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
