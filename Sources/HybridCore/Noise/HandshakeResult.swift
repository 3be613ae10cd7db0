import Crypto

/// Which side of the handshake a peer played: the client initiates, the phone responds.
package enum HandshakeRole: Sendable, Equatable {
    /// The client (desktop), which sends msg1.
    case initiator
    /// The authenticator (phone), which sends msg2.
    case responder
}

/// The outcome of a completed handshake (protocol.md §6.4): the traffic keys from Split and the
/// final handshake hash.
package struct HandshakeResult: Sendable {
    /// The final h, identical on both sides; the channel binding of the linking signature.
    package let handshakeHash: [UInt8]
    /// k1: the client's write key and the phone's read key.
    package let initiatorToResponderKey: SymmetricKey
    /// k2: the phone's write key and the client's read key.
    package let responderToInitiatorKey: SymmetricKey

    init(state: NoiseSymmetricState) {
        let keys = state.split()
        handshakeHash = state.handshakeHash
        initiatorToResponderKey = keys.initiatorToResponder
        responderToInitiatorKey = keys.responderToInitiator
    }

    /// The transport crypter for `role`, both counters at 0.
    package func crypter(for role: HandshakeRole) -> TransportCrypter {
        switch role {
        case .initiator: return TransportCrypter(readKey: responderToInitiatorKey, writeKey: initiatorToResponderKey)
        case .responder: return TransportCrypter(readKey: initiatorToResponderKey, writeKey: responderToInitiatorKey)
        }
    }
}
