/// `count` bytes from the system generator: challenges, nonces and junk whose values no test
/// depends on (randomized tests that must replay use TestSeededRandom instead).
package func randomBytes(_ count: Int) -> [UInt8] {
    (0..<count).map { _ in UInt8.random(in: .min ... .max) }
}
