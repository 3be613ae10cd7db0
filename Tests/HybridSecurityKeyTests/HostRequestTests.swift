import HybridCTAP
import HybridCore
import HybridSecurityKey
import Testing

/// The key decodes each makeCredential and getAssertion once, leniently, into HybridCTAP's typed
/// requests: what a strict authenticator refuses (CTAP 2.2 §6.1, §6.2: clientDataHash 32 bytes,
/// user.id 1–64 bytes, descriptors and parameters with `type`, booleans as options) is decided on
/// here, while a missing required key is still CTAP2_ERR_MISSING_PARAMETER (0x14).
@Suite struct HostRequestTests {
    typealias H = HandCBOR

    /// A makeCredential no strict decoder takes: a 16-byte clientDataHash, a user without `id`,
    /// one pubKeyCredParams entry without `type`, `up` given as a number, an exclude entry
    /// without `id`.
    static let looseRegistration: [UInt8] = {
        let rp: [UInt8] = [0xA1] + H.text("id") + H.text("example.com")
        let user: [UInt8] = [0xA1] + H.text("name") + H.text("alice")
        let noType: [UInt8] = [0xA1] + H.text("alg") + [0x26]
        let es256: [UInt8] = [0xA2] + H.text("alg") + [0x26] + H.text("type") + H.text("public-key")
        let listed: [UInt8] = [0xA2] + H.text("id") + H.bytes([0xA1]) + H.text("type") + H.text("public-key")
        let noID: [UInt8] = [0xA1] + H.text("type") + H.text("public-key")
        let options: [UInt8] = [0xA1] + H.text("up") + [0x01]
        return [0x01, 0xA6, 0x01] + H.bytes([UInt8](repeating: 0x22, count: 16)) + [0x02] + rp + [0x03] + user
            + [0x04, 0x82] + noType + es256 + [0x05, 0x82] + listed + noID + [0x07] + options
    }()

    @Test func looseFieldsAreDecidedOnNotRefused() throws {
        let parameters = try CBORDecoder.decode(Self.looseRegistration.dropFirst())
        #expect(throws: CTAPError.self) { try MakeCredentialRequest(cbor: parameters) }
        let decoded = try HostRequest.decode(command: .makeCredential, parameters: Self.looseRegistration.dropFirst())
        guard case .makeCredential(let request, let map)? = decoded else {
            Issue.record("not a makeCredential: \(String(describing: decoded))")
            return
        }
        #expect(request.rp.id == "example.com" && request.clientDataHash.count == 16)
        #expect(request.user.id.isEmpty && request.user.name == "alice")
        #expect(request.publicKeyCredentialParameters == [PublicKeyCredentialParameters(algorithm: -7)])
        #expect(request.excludeList?.map(\.id) == [[0xA1]])
        #expect(request.options?.userPresence == nil)
        #expect(map == parameters)  // kept as sent, for the phone
    }

    @Test func missingRequiredKeysAreStillMissing() throws {
        let noRPID: [UInt8] =
            [0xA4, 0x01] + H.bytes([0x22]) + [0x02, 0xA0, 0x03, 0xA0, 0x04, 0x80]
        #expect(throws: HostRequest.Refusal.self) {
            try HostRequest.decode(command: .makeCredential, parameters: noRPID[...])
        }
        let noHash: [UInt8] = [0xA1, 0x01] + H.text("example.com")
        do {
            _ = try HostRequest.decode(command: .getAssertion, parameters: noHash[...])
            Issue.record("decoded without a clientDataHash")
        } catch {
            #expect(error.status.rawValue == 0x14)
        }
        #expect(try HostRequest.decode(command: .getInfo, parameters: []) == nil)
    }
}
