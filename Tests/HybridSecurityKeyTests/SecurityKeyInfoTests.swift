import HybridCore
import HybridSecurityKey
import Testing

/// The key's authenticatorGetInfo, byte for byte against the CTAP 2.2 definition (§6.4), and the
/// fields the host libraries decide on.
@Suite struct SecurityKeyInfoTests {
    /// Written out by hand from CTAP 2.2 §6.4 (keys 0x01 versions … 0x09 transports; options map
    /// keys in canonical order: two-letter names first, then "plat").
    static let expected: [UInt8] =
        [0x00, 0xA8]  // 8 entries: keys 1, 3, 4, 5, 6, 7, 8, 9
        + [0x01, 0x82, 0x68] + Array("FIDO_2_0".utf8) + [0x68] + Array("FIDO_2_1".utf8)
        + [0x03, 0x50, 0x5E, 0x68, 0x04, 0xEE, 0x05, 0xFB, 0x49, 0x48, 0x87, 0x8A, 0xEC, 0xF4, 0x1B, 0x5C, 0x6B, 0x48]
        + [
            0x04, 0xA4, 0x62, 0x72, 0x6B, 0xF5, 0x62, 0x75, 0x70, 0xF5, 0x62, 0x75, 0x76, 0xF5, 0x64, 0x70, 0x6C, 0x61,
            0x74, 0xF4,
        ]
        + [0x05, 0x19, 0x1D, 0xB9]  // maxMsgSize 7609
        + [0x06, 0x81, 0x01]  // pinUvAuthProtocols [1]
        + [0x07, 0x18, 0x40]  // maxCredentialCountInList 64
        + [0x08, 0x19, 0x03, 0xFF]  // maxCredentialIdLength 1023
        + [0x09, 0x81, 0x63, 0x75, 0x73, 0x62]  // transports ["usb"]

    @Test func getInfoBytesMatchTheSpecDefinition() {
        var policy = BridgeRequestPolicy()
        let decision = policy.decide([0x04], at: .zero)
        #expect(decision == .answer(Self.expected, reason: "getInfo is answered locally"))
    }

    /// python-fido2 2.x (`ClientPin.__init__`) needs a protocol in common to use UV at all;
    /// Firefox, Chromium, libfido2 and python-fido2 take the built-in-UV path (`uv: true`, no
    /// clientPIN) only without `clientPin` and `pinUvAuthToken`; Chromium downgrades UV on
    /// makeCredential when `makeCredUvNotRqd` is set.
    @Test func hostsTakeTheBuiltInUVPath() throws {
        let info = SecurityKeyInfo.response
        #expect(info.options?["uv"] == true)
        #expect(info.pinUvAuthProtocols?.contains(1) == true || info.pinUvAuthProtocols?.contains(2) == true)
        #expect(info.options?["clientPin"] == nil)
        #expect(info.options?["pinUvAuthToken"] == nil)
        #expect(info.options?["makeCredUvNotRqd"] == nil)
        #expect(info.extensions == nil)  // no hmac-secret: Firefox would fetch a shared secret
    }
}
