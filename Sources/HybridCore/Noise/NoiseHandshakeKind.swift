import Crypto

/// The two Noise patterns of the hybrid transport and what they share (protocol.md §6.1–6.2).
enum NoiseHandshakeKind: Sendable {
    /// QR flow: the initiator's static key is known to the responder from the QR code.
    case knpsk0
    /// Linked flow: the responder's static key is known to the initiator from linking.
    case nkpsk0

    /// The Noise protocol name, 31 ASCII bytes.
    var protocolName: String {
        switch self {
        case .knpsk0: return "Noise_KNpsk0_P256_AESGCM_SHA256"
        case .nkpsk0: return "Noise_NKpsk0_P256_AESGCM_SHA256"
        }
    }

    /// The one-byte prologue.
    var prologue: UInt8 {
        switch self {
        case .knpsk0: return 0x01
        case .nkpsk0: return 0x00
        }
    }

    /// The state both roles reach before msg1's `e`: name, prologue, the pre-message static key
    /// (the initiator's for KN, the responder's for NK), then MixKeyAndHash(psk).
    func initialState(preMessageStaticKey: P256.KeyAgreement.PublicKey, psk: PSK) -> NoiseSymmetricState {
        var state = NoiseSymmetricState(protocolName: protocolName)
        state.mixHash([prologue])
        state.mixHash(preMessageStaticKey.uncompressedBytes)
        state.mixKeyAndHash(psk.bytes)
        return state
    }
}

/// Length of msg1 and msg2: a 65-byte ephemeral key and the 16-byte tag of an empty payload.
let noiseHandshakeMessageByteCount = 81
