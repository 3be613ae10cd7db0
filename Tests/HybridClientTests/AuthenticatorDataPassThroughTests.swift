import HybridCTAP
import HybridCore
import Testing

/// The client hands relying parties the authenticator's authData bytes as received: signatures
/// cover those bytes, not our re-encoding.
@Suite struct AuthenticatorDataPassThroughTests {
    /// rpIdHash ‖ flags (UP, ED, an RFU bit) ‖ counter ‖ extensions {"credProtect": 1}.
    static let received: [UInt8] =
        [UInt8](repeating: 0xAB, count: 32) + [0x83, 0, 0, 0, 7] + [0xA1, 0x6B] + Array("credProtect".utf8) + [0x01]

    @Test func parsedValueKeepsAndReturnsItsBytes() throws {
        let parsed = try AuthenticatorData(bytes: Self.received)
        #expect(parsed.receivedBytes == Self.received)
        #expect(parsed.encoded == Self.received)
        #expect(parsed.signCount == 7)
        #expect(AttestationObject.none(parsed).cbor[textKey: "authData"]?.bytesValue == Self.received)
    }

    @Test func modifyingAFieldDropsTheReceivedBytes() throws {
        var parsed = try AuthenticatorData(bytes: Self.received)
        parsed.signCount = 8
        #expect(parsed.receivedBytes == nil)
        #expect(parsed.encoded != Self.received)
        #expect(parsed.encoded[33..<37] == [0, 0, 0, 8])
    }

    @Test func builtValueHasNoReceivedBytes() {
        let built = AuthenticatorData(rpIDHash: [UInt8](repeating: 1, count: 32), flags: .userPresent, signCount: 0)
        #expect(built.receivedBytes == nil)
        #expect(built.encoded.count == AuthenticatorData.minimumLength)
    }
}
