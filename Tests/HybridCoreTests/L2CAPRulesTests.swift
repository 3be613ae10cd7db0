import HybridConformance
import HybridCore
import Testing

/// The L2CAP rule hybrid-conformance judges phones by (protocol.md §3.4).
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
}
