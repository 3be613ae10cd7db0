import HybridConformance
import HybridCore
import Testing

/// The L2CAP rules hybrid-conformance judges peers by (protocol.md §1.3, §3.4). QR maps are written
/// as CBOR bytes by hand (RFC 8949), not with our encoder.
@Suite struct L2CAPRulesTests {
    private let advert20 = [UInt8](repeating: 0x5F, count: 20)

    @Test func aPhoneMayAppendASuffixOnlyWhenAsked() throws {
        let androidAdvert = advert20 + [0xA1, 0x01, 0x18, 0x82]  // §3.4's suffix {1: 130}
        try L2CAPRules.checkPhoneAdvert(serviceData: androidAdvert, qrChannels: [.cloudTunnel, .bleL2CAP])
        try L2CAPRules.checkPhoneAdvert(serviceData: advert20, qrChannels: nil)
        try L2CAPRules.checkPhoneAdvert(serviceData: advert20, qrChannels: [.cloudTunnel, .bleL2CAP])
        #expect(throws: L2CAPRuleViolation.suffixNotRequested(serviceDataLength: 24)) {
            try L2CAPRules.checkPhoneAdvert(serviceData: androidAdvert, qrChannels: nil)
        }
        #expect(throws: L2CAPRuleViolation.suffixNotRequested(serviceDataLength: 24)) {
            try L2CAPRules.checkPhoneAdvert(serviceData: androidAdvert, qrChannels: [.cloudTunnel])
        }
    }

    @Test func aClientWritesKey6OnlyAsAnArrayOfferingL2CAP() throws {
        // {0: h'', 1: h''} with and without key 6.
        let base: [UInt8] = [0x40, 0x01, 0x40]
        try L2CAPRules.checkClientQR(qrCBOR: [0xA2, 0x00] + base)
        try L2CAPRules.checkClientQR(qrCBOR: [0xA3, 0x00] + base + [0x06, 0x82, 0x00, 0x01])  // 6: [0, 1]
        #expect(throws: L2CAPRuleViolation.key6WithoutL2CAP([0])) {
            try L2CAPRules.checkClientQR(qrCBOR: [0xA3, 0x00] + base + [0x06, 0x81, 0x00])  // 6: [0]
        }
        #expect(throws: L2CAPRuleViolation.key6NotAnArray) {
            try L2CAPRules.checkClientQR(qrCBOR: [0xA3, 0x00] + base + [0x06, 0xF5])  // 6: true
        }
        #expect(throws: L2CAPRuleViolation.qrNotAMap) { try L2CAPRules.checkClientQR(qrCBOR: [0x80]) }
    }
}
