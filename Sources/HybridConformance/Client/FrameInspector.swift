import Crypto
import HybridCore

/// Opens what an authenticator sends in one QR session with the client's own keys, keeping every
/// byte the session state machine hides: the padded plaintexts (to judge padding) and which
/// crypter construction worked.
///
/// It runs beside the client's ``ClientSession`` on the same messages: the Noise handshake is
/// deterministic for the client's ephemeral key, so re-running it on msg2 gives the same traffic
/// keys. Sans-IO: no sockets, no clocks, no randomness.
package struct FrameInspector: Sendable {
    private enum State: Sendable {
        case awaitingMessage2(HandshakeInitiator)
        case opening(TransportCrypter, opened: Int)
        case stopped
    }

    private var state: State

    /// - Parameters:
    ///   - identityKey: The QR identity key (QR key 0) of this ceremony.
    ///   - qrSecret: The QR secret (QR key 1).
    ///   - ephemeralKey: The handshake key the client's session used.
    ///   - advert: The authenticator's decrypted advert, which the PSK is derived from.
    package init(
        identityKey: P256.KeyAgreement.PrivateKey, qrSecret: QRSecret, ephemeralKey: P256.KeyAgreement.PrivateKey,
        advert: AdvertPlaintext
    ) {
        let initiator = HandshakeInitiator(
            pattern: .knpsk0(identityKey: identityKey), psk: qrSecret.psk(eidPlaintext: advert),
            ephemeralKey: ephemeralKey)
        state = .awaitingMessage2(initiator)
    }

    /// Inspects the next message from the authenticator (msg2 first, then the frames).
    package mutating func inspect(_ message: [UInt8]) -> InspectedMessage {
        switch state {
        case .awaitingMessage2(let initiator):
            do {
                let result = try initiator.processMessage2(message)
                state = .opening(result.crypter(for: .initiator), opened: 0)
                return .message2(nil)
            } catch {
                state = .stopped
                return .message2(error)
            }
        case .opening(var crypter, let opened):
            let sequence = crypter.readSequence
            do {
                let padded = try crypter.decryptPadded(message)
                state = .opening(crypter, opened: opened + 1)
                return .frame(OpenedFrame(sequence: sequence, padded: padded, construction: crypter.construction))
            } catch .authenticationFailed where opened == 0 && crypter.construction == .new {
                // A pre-2022 phone uses the old construction from its first frame on (§10.3).
                var old = crypter.restarted(with: .old)
                if let padded = try? old.decryptPadded(message) {
                    state = .opening(old, opened: 1)
                    return .frame(OpenedFrame(sequence: sequence, padded: padded, construction: .old))
                }
                state = .stopped
                return .unopened(sequence: sequence, ciphertextLength: message.count)
            } catch {
                state = .stopped
                return .unopened(sequence: sequence, ciphertextLength: message.count)
            }
        case .stopped:
            return .notInspected
        }
    }
}

/// One message from the authenticator, as ``FrameInspector`` saw it.
package enum InspectedMessage: Sendable, Equatable {
    /// The handshake response; the error if the handshake failed.
    case message2(HandshakeError?)
    /// A frame that decrypted.
    case frame(OpenedFrame)
    /// A frame that did not decrypt with either construction.
    case unopened(sequence: UInt32, ciphertextLength: Int)
    /// A message after an earlier failure: not opened.
    case notInspected
}
