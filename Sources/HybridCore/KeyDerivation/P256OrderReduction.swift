/// Reduction of a big-endian integer modulo the P-256 group order n, done by hand because
/// swift-crypto exposes no big-number arithmetic.
///
/// Used only by ``IdentityKeyDerivation``, which reduces a 48-byte (384-bit) HKDF output. The
/// reduction is a textbook shift-and-subtract: for each input bit, from the most significant,
/// r ← 2r + bit, then subtract n once if r ≥ n. Since r < n before the step, 2r + bit < 2n, so one
/// subtraction always suffices. It is not constant time; that is acceptable for deriving a key
/// from a local seed, which only matters for reproducing fixtures.
enum P256OrderReduction {
    /// The group order n as four 64-bit limbs, least significant first.
    static let order: [UInt64] = [
        0xF3B9_CAC2_FC63_2551, 0xBCE6_FAAD_A717_9E84, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_0000_0000,
    ]

    /// Returns `value mod n` as 32 big-endian bytes. `value` is big-endian and may have any length.
    static func reduce(bigEndian value: some Collection<UInt8>) -> [UInt8] {
        var r: [UInt64] = [0, 0, 0, 0]
        for byte in value {
            for bitIndex in stride(from: 7, through: 0, by: -1) {
                let bit = UInt64(byte >> UInt8(bitIndex) & 1)
                let carry = r[3] >> 63
                r[3] = r[3] << 1 | r[2] >> 63
                r[2] = r[2] << 1 | r[1] >> 63
                r[1] = r[1] << 1 | r[0] >> 63
                r[0] = r[0] << 1 | bit
                // The true value is carry·2^256 + r; it is below 2n, so subtract n at most once.
                if carry == 1 || !isLess(r, than: order) {
                    subtract(order, from: &r)
                }
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for limb in r.reversed() {
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: limb >> UInt64(shift)))
            }
        }
        return out
    }

    /// Whether `a < b`, both four limbs, least significant first.
    private static func isLess(_ a: [UInt64], than b: [UInt64]) -> Bool {
        for index in stride(from: 3, through: 0, by: -1) where a[index] != b[index] {
            return a[index] < b[index]
        }
        return false
    }

    /// `a -= b` modulo 2^256.
    private static func subtract(_ b: [UInt64], from a: inout [UInt64]) {
        var borrow: UInt64 = 0
        for index in 0..<4 {
            let (partial, overflow1) = a[index].subtractingReportingOverflow(b[index])
            let (result, overflow2) = partial.subtractingReportingOverflow(borrow)
            a[index] = result
            borrow = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
    }
}
