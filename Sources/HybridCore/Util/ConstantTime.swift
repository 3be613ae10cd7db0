/// Comparison of secrets and authentication tags without data-dependent early exit.
package enum ConstantTime {
    /// Returns whether `a` and `b` are equal, taking time that depends only on their lengths.
    package static func equal<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
    where A.Element == UInt8, B.Element == UInt8 {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
