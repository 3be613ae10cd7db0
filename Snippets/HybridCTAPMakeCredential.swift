// Builds the CTAP2 authenticatorMakeCredential request a client sends to a phone, and reads the
// phone's authenticatorGetInfo (which arrives in the post-handshake message).
import Crypto
import HybridCTAP

let clientDataJSON = Array(#"{"type":"webauthn.create","challenge":"AAAA","origin":"https://example.com"}"#.utf8)
let request = MakeCredentialRequest(
    clientDataHash: Array(SHA256.hash(data: clientDataJSON)),
    rp: PublicKeyCredentialRPEntity(id: "example.com", name: "Example"),
    user: PublicKeyCredentialUserEntity(id: Array("user-1234".utf8), name: "alice", displayName: "Alice"),
    publicKeyCredentialParameters: [PublicKeyCredentialParameters(algorithm: -7)])
// Command byte 0x01, then the canonical CBOR parameter map: what goes into the tunnel.
print(request.encoded.count, "bytes")

// A getInfo map: {1: ["FIDO_2_0"], 3: 16 bytes of AAGUID}.
let getInfoBytes: [UInt8] =
    [0xA2, 0x01, 0x81, 0x68] + Array("FIDO_2_0".utf8) + [0x03, 0x50] + [UInt8](repeating: 0, count: 16)
let info = try AuthenticatorGetInfoResponse(bytes: getInfoBytes)
print("versions:", info.versions)
