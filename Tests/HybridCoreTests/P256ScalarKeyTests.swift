import Crypto
import HybridCore
import Testing

@Suite struct P256ScalarKeyTests {
    /// The P-256 group order n (SEC 2 §2.4.2), big-endian.
    static let order: [UInt8] = [
        0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
    ]

    @Test func theScalarIsTheBytesGiven() throws {
        let scalar = [UInt8](repeating: 0x5a, count: 32)
        let key = try #require(P256.KeyAgreement.PrivateKey(scalarFrom: { _ in scalar }))
        #expect(Array(key.rawRepresentation) == scalar)
    }

    @Test func zeroAndScalarsNotBelowTheOrderAreDrawnAgain() throws {
        var orderMinusOne = Self.order
        orderMinusOne[31] -= 1
        var draws: [[UInt8]] = [
            [UInt8](repeating: 0, count: 32), Self.order, [UInt8](repeating: 0xff, count: 32), orderMinusOne,
        ]
        let key = try #require(P256.KeyAgreement.PrivateKey(scalarFrom: { _ in draws.removeFirst() }))
        #expect(Array(key.rawRepresentation) == orderMinusOne)
        #expect(draws.isEmpty)
    }

    @Test func aBrokenSourceGivesNoKey() {
        #expect(P256.KeyAgreement.PrivateKey(scalarFrom: { _ in [] }) == nil)
        #expect(P256.KeyAgreement.PrivateKey(scalarFrom: { _ in [UInt8](repeating: 0, count: 32) }) == nil)
    }
}
