/// Non-resolvable private addresses (Core spec Vol 6 Part B §1.3.2.2): what an advertiser uses so
/// that its adverts cannot be linked to the controller or to each other.
extension BLEAddress {
    /// The 46 random bits of a non-resolvable private address; the two most significant bits of the
    /// address (its "sub-type") are 0b00.
    static let nonResolvablePrivateRandomMask: UInt64 = 0x3FFF_FFFF_FFFF

    /// A fresh non-resolvable private address built from 64-bit draws of `draw`.
    ///
    /// Each draw gives the 46 low bits of the address (the rest is discarded). A draw is rejected and
    /// another one taken when its 46 bits are all 0 or all 1, or when the address equals `excluded`
    /// (the controller's public address), as §1.3.2.2 requires.
    /// - Parameters:
    ///   - excluded: an address the result must differ from (the public address), if known.
    ///   - draw: uniformly random 64-bit values (production: `SystemRandomNumberGenerator`).
    static func nonResolvablePrivate(excluding excluded: BLEAddress?, draw: () -> UInt64) -> BLEAddress {
        while true {
            let bits = draw() & nonResolvablePrivateRandomMask
            guard bits != 0, bits != nonResolvablePrivateRandomMask else { continue }
            let address = BLEAddress(littleEndian: (0..<6).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) })
            if address != excluded { return address }
        }
    }

    /// Whether this address has the form of a non-resolvable private address: top two bits 0b00, and
    /// the 46 random bits neither all 0 nor all 1.
    var isNonResolvablePrivate: Bool {
        guard bytes[0] & 0xC0 == 0 else { return false }
        let bits = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return bits != 0 && bits != Self.nonResolvablePrivateRandomMask
    }
}
