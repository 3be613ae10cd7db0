import Testing

@testable import HybridBluetooth

/// Core spec Vol 6 Part B §1.3.2.2: a non-resolvable private address is 46 random bits under a
/// two-bit sub-type 0b00; the random bits are neither all 0 nor all 1, and the address is not the
/// public address. Draws are pinned; expected addresses are worked out by hand.
@Suite struct NonResolvablePrivateAddressTests {
    /// Hands out `values` in order and counts how many were taken.
    struct PinnedDraws {
        var values: [UInt64]
        var taken = 0

        mutating func next() -> UInt64 {
            defer { taken += 1 }
            return values[taken]
        }
    }

    @Test func the46LowBitsOfADrawAreTheAddress() {
        var draws = PinnedDraws(values: [0x0000_0123_4567_89AB])
        let address = BLEAddress.nonResolvablePrivate(excluding: nil) { draws.next() }
        #expect(address.description == "01:23:45:67:89:AB")
        #expect(draws.taken == 1)
    }

    @Test func theTwoMostSignificantBitsAreCleared() {
        var draws = PinnedDraws(values: [0xFFFF_FFFF_FFFF_FFFE])
        let address = BLEAddress.nonResolvablePrivate(excluding: nil) { draws.next() }
        #expect(address.description == "3F:FF:FF:FF:FF:FE")
        #expect(address.bytes[0] & 0xC0 == 0)
    }

    @Test func allZeroAndAllOneRandomPartsAreDrawnAgain() {
        var draws = PinnedDraws(values: [
            0,  // all 0
            0xFFFF_FFFF_FFFF_FFFF,  // all 46 random bits 1
            0x0000_3FFF_FFFF_FFFF,  // the same, without the discarded bits
            0xFFFF_C000_0000_0000,  // only discarded bits set: random part all 0
            0xDEAD_BEEF_CAFE_F00D,  // 0xBEEF_CAFE_F00D & 0x3FFF_FFFF_FFFF = 0x3EEF_CAFE_F00D
        ])
        let address = BLEAddress.nonResolvablePrivate(excluding: nil) { draws.next() }
        #expect(address.description == "3E:EF:CA:FE:F0:0D")
        #expect(draws.taken == 5)
    }

    @Test func thePublicAddressIsDrawnAgain() throws {
        let publicAddress = try #require(BLEAddress(string: "01:23:45:67:89:AB"))
        var draws = PinnedDraws(values: [0x0123_4567_89AB, 0x0000_0000_0001])
        let address = BLEAddress.nonResolvablePrivate(excluding: publicAddress) { draws.next() }
        #expect(address.description == "00:00:00:00:00:01")
        #expect(draws.taken == 2)
    }

    @Test(arguments: [
        ("01:23:45:67:89:AB", true), ("3F:FF:FF:FF:FF:FE", true), ("00:00:00:00:00:01", true),
        ("00:00:00:00:00:00", false), ("3F:FF:FF:FF:FF:FF", false),
        ("41:23:45:67:89:AB", false), ("81:23:45:67:89:AB", false), ("C1:23:45:67:89:AB", false),
    ])
    func formCheck(_ text: String, _ valid: Bool) throws {
        #expect(try #require(BLEAddress(string: text)).isNonResolvablePrivate == valid)
    }

    @Test func systemRandomAddressesAreValidAndDistinct() {
        var generator = SystemRandomNumberGenerator()
        let addresses = (0..<1000).map { _ in BLEAddress.nonResolvablePrivate(excluding: nil) { generator.next() } }
        #expect(addresses.filter { !$0.isNonResolvablePrivate }.isEmpty)
        #expect(Set(addresses).count == addresses.count)
    }
}
