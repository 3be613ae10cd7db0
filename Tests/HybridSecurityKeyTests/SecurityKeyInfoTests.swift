import HybridCore
import HybridSecurityKey
import Testing

/// The key's authenticatorGetInfo, byte for byte against the CTAP 2.2 definition (§6.4), and the
/// fields the host libraries decide on.
@Suite struct SecurityKeyInfoTests {
    typealias H = HandCBOR

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
        + [0x07, 0x14]  // maxCredentialCountInList 20
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

    /// Reports a message of `length` bytes takes (CTAP 2.2 §11.2.4: 57 bytes in the
    /// initialization packet, 59 in each continuation packet).
    static func reports(_ length: Int) -> Int { 1 + max(0, length - 57 + 58) / 59 }

    /// The reports uhid queues for a key whose reader has not run: `UHID_BUFSIZE` is 32 in the
    /// kernel's drivers/hid/uhid.c, and its ring keeps one slot free.
    static let kernelQueue = 31

    /// The longest request a host builds from getInfo is one probe of maxCredentialCountInList
    /// IDs, and it must fit in the kernel's queue: with the longest IDs the uhid load proof sends
    /// (64 bytes) and python-fido2's probe around them, and with phone-sized IDs (32 bytes) under
    /// the longest RP ID (253 characters) and Firefox's probe options.
    @Test func aWholeChunkFitsInTheKernelsQueue() {
        let count = Int(SecurityKeyInfo.maxCredentialCountInList)
        #expect(Self.reports(57) == 1 && Self.reports(58) == 2 && Self.reports(116) == 2 && Self.reports(117) == 3)
        let longIDs = (0..<count).map { [UInt8](repeating: UInt8($0), count: 64) }
        let loadProbe = H.getAssertion(
            rpID: "load.example", clientDataHash: [UInt8](repeating: 0, count: 32), allow: longIDs, options: H.upFalse)
        #expect(Self.reports(loadProbe.count) <= Self.kernelQueue, "\(loadProbe.count) bytes")
        let phoneIDs = (0..<count).map { [UInt8](repeating: UInt8($0), count: 32) }
        let longRP = [63, 63, 63, 61].enumerated()
            .map { String(repeating: Character(UnicodeScalar(UInt8(0x61 + $0.offset))), count: $0.element) }
            .joined(separator: ".")
        let firefoxProbe = H.getAssertion(
            rpID: longRP, clientDataHash: H.emptyHash, allow: phoneIDs, options: H.upFalse)
        #expect(longRP.count == 253)
        #expect(Self.reports(firefoxProbe.count) <= Self.kernelQueue, "\(firefoxProbe.count) bytes")
    }

    /// Firefox refuses lists longer than 20, so with chunks of 20 none of its probes is followed
    /// by another: the key can claim its full chunks (``BridgeRequestPolicy``).
    @Test func firefoxNeverSendsASecondChunk() {
        #expect(Int(SecurityKeyInfo.maxCredentialCountInList) >= SecurityKeyInfo.firefoxListLimit)
    }
}
