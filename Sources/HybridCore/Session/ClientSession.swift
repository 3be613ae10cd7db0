import Crypto

/// The client's (desktop's) side of a QR-initiated hybrid session, as a sans-IO state machine.
///
/// The driver shows the QR code, feeds every BLE advert and tunnel event in, and performs the
/// actions it returns, in order. No sockets, timers or randomness live here: the identity key,
/// QR secret and ephemeral key are parameters. Chromium: `FidoTunnelDevice` with the advert
/// matching of `v2_discovery.cc`.
///
/// ```
/// advertReceived(mine)        → connectTunnel(/cable/connect/<routing ID>/<tunnel ID>)
/// tunnelOpened()              → send(msg1)
/// messageReceived(msg2)       → (nothing yet)
/// messageReceived(post-hs)    → handshakeCompleted, send(request) if one is queued
/// send(request)               → send(request) (or queue it until the post-handshake message)
/// messageReceived(response)   → deliverResponse, send(shutdown), finish
/// messageReceived(update)    → updateReceived (validated; before or after the reply)
/// ```
public struct ClientSession: Sendable {
    /// What the client put in its QR code.
    public struct Configuration: Sendable {
        /// The QR identity key pair (its public key is QR key 0).
        public var identityKey: P256.KeyAgreement.PrivateKey
        /// The QR secret (QR key 1).
        public var qrSecret: QRSecret
        /// Whether the QR code offered BLE L2CAP (key 6 holds 1). Only then does an advert longer
        /// than 20 bytes match: its first 20 bytes are trial-decrypted and the rest is read as the
        /// CTAP 2.3 suffix (§3.4). Otherwise such adverts are ignored, as Chromium does.
        public var acceptsAdvertSuffix: Bool

        /// The client's identity key and QR secret (both in the QR code it showed).
        public init(identityKey: P256.KeyAgreement.PrivateKey, qrSecret: QRSecret, acceptsAdvertSuffix: Bool = false) {
            self.identityKey = identityKey
            self.qrSecret = qrSecret
            self.acceptsAdvertSuffix = acceptsAdvertSuffix
        }
    }

    /// What the driver must do next.
    public enum Action: Sendable {
        /// Stop scanning and open the tunnel at this `/cable/connect` URL (the driver may map the
        /// domain to a test relay), then report ``ClientSession/tunnelOpened()``.
        case connectTunnel(TunnelURL, domain: TunnelDomainID)
        /// Send one binary WebSocket message.
        case send([UInt8])
        /// The authenticator is connected; its post-handshake message carries its getInfo.
        case handshakeCompleted(PostHandshakeMessage)
        /// The reply to the request.
        case deliverResponse(HybridPayload)
        /// A valid update message arrived (§7.4), before the reply or after it (a late linking
        /// update, §7.5), with its linking info if it carried any, signature verified (§7.6).
        /// This client offers no linking (QR key 4 = false), so a driver only records it.
        case updateReceived(linking: LinkingInfo?)
        /// The session is over: close the tunnel.
        case finish
    }

    fileprivate enum State {
        case awaitingAdvert
        case connecting(psk: PSK)
        case awaitingHandshakeResponse(HandshakeInitiator)
        case awaitingPostHandshake(TransportCrypter)
        case ready(TransportCrypter, revision: HybridProtocolRevision)
        case awaitingResponse(TransportCrypter, revision: HybridProtocolRevision, request: HybridPayload)
        /// The reply arrived; the crypter stays for late updates (§7.5).
        case finished(TransportCrypter, revision: HybridProtocolRevision)
        case failed
    }

    private let configuration: Configuration
    private let eidKey: EIDKey
    private let ephemeralKey: P256.KeyAgreement.PrivateKey
    fileprivate var state: State = .awaitingAdvert
    private var queuedRequest: HybridPayload?
    /// **Conformance only.** A request to send right after the first reply, in the same session,
    /// instead of the shutdown: a browser never does this, and a phone should refuse it or close
    /// the tunnel (one request per QR code, protocol.md §7.5). Its reply, if any, is delivered too.
    package var followUpRequest: HybridPayload?
    /// **Conformance only.** Seal the request with its sequence number even past the crypter's
    /// limit (``TransportCrypter/enforcesSequenceLimit``), as a careless client would
    /// after 2^24 messages; a careful phone refuses to open it (§7.1).
    package var sealsRequestIgnoringSequenceLimit = false

    /// The phone's effective post-handshake features (§7.2), once its post-handshake message arrived.
    package private(set) var phoneFeatures: [HybridFeature]?

    /// The matched advert, once one has arrived.
    package private(set) var advert: AdvertPlaintext?
    /// The CTAP 2.3 suffix of the matched advert, if it had one that parsed: its PSM is the
    /// phone's L2CAP channel (§3.4). Always `nil` unless ``Configuration/acceptsAdvertSuffix``.
    public private(set) var advertSuffix: AdvertSuffix?
    /// The Noise handshake hash, once the handshake is done.
    public private(set) var handshakeHash: [UInt8]?

    /// - Parameters:
    ///   - configuration: The keys behind the QR code being shown.
    ///   - ephemeralKey: A fresh P-256 key for this handshake only.
    public init(configuration: Configuration, ephemeralKey: P256.KeyAgreement.PrivateKey) {
        self.configuration = configuration
        self.eidKey = configuration.qrSecret.eidKey
        self.ephemeralKey = ephemeralKey
    }

    /// Whether the session ended normally.
    public var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// Service data seen under UUID 0xFFF9 or 0xFDE2. Adverts that are not for this QR code, and
    /// every advert after the first match, are ignored (§3.2). With
    /// ``Configuration/acceptsAdvertSuffix``, the bytes after the first 20 are the CTAP 2.3
    /// suffix; one that does not parse leaves ``advertSuffix`` `nil` (the tunnel still works).
    public mutating func advertReceived(serviceData: [UInt8]) -> [Action] {
        guard case .awaitingAdvert = state else { return [] }
        var encrypted = serviceData
        var suffix: [UInt8] = []
        if configuration.acceptsAdvertSuffix, let split = try? AdvertServiceData(serviceData) {
            encrypted = split.advert
            suffix = split.suffix
        }
        guard let plaintext = eidKey.trialDecrypt(encrypted) else { return [] }
        advert = plaintext
        advertSuffix = suffix.isEmpty ? nil : try? AdvertSuffix(decoding: suffix)
        state = .connecting(psk: configuration.qrSecret.psk(eidPlaintext: plaintext))
        let url = TunnelURL.connect(
            domain: plaintext.domainID, routingID: plaintext.routingID, tunnelID: configuration.qrSecret.tunnelID)
        return [.connectTunnel(url, domain: plaintext.domainID)]
    }

    /// The tunnel is open: the client speaks first (§5.4).
    public mutating func tunnelOpened() throws(SessionError) -> [Action] {
        guard case .connecting(let psk) = state else { throw outOfOrder(.tunnelOpened) }
        let initiator = HandshakeInitiator(
            pattern: .knpsk0(identityKey: configuration.identityKey), psk: psk, ephemeralKey: ephemeralKey)
        state = .awaitingHandshakeResponse(initiator)
        return [.send(initiator.makeMessage1())]
    }

    /// Queues the one request of this session; it goes out as soon as the session is ready.
    public mutating func send(_ request: HybridPayload) throws(SessionError) -> [Action] {
        guard queuedRequest == nil else { throw .outOfOrder(.requestAlreadyQueued) }
        switch state {
        case .awaitingAdvert, .connecting, .awaitingHandshakeResponse, .awaitingPostHandshake:
            queuedRequest = request
            return []
        case .ready(let crypter, let revision):
            return try sendRequest(request, crypter: crypter, revision: revision)
        case .awaitingResponse, .finished, .failed:
            throw outOfOrder(.send)
        }
    }

    /// **Conformance only.** How many empty update messages (type 02 holding `{}`) the client
    /// sends after the post-handshake message and before its request (``nextEmptyUpdate()``), so
    /// that the request travels with this sequence number. A phone only checks that a client's
    /// update is CBOR (§7.3): this is how a judge walks its read counter to the limit (§7.1).
    package var emptyUpdatesBeforeRequest: UInt32 = 0

    /// The next of the ``emptyUpdatesBeforeRequest`` updates, sealed with the next sequence
    /// number, or `nil` when none is left. The driver sends them all before the request it makes
    /// from the post-handshake message. Only after the post-handshake message of a revision-1 phone.
    ///
    /// - Throws: ``SessionError/outOfOrder(_:)`` in any other state,
    ///   ``SessionError/transport(_:)`` once the sequence limit is reached.
    package mutating func nextEmptyUpdate() throws(SessionError) -> [UInt8]? {
        guard emptyUpdatesBeforeRequest > 0 else { return nil }
        guard case .ready(var crypter, let revision) = state, revision == .one else { throw outOfOrder(.send) }
        do {
            let ciphertext = try crypter.encrypt(Self.emptyUpdate)
            state = .ready(crypter, revision: revision)
            emptyUpdatesBeforeRequest -= 1
            return ciphertext
        } catch {
            throw .transport(error)
        }
    }

    private static let emptyUpdate = HybridFrame(type: .update, payload: [0xA0]).encoded(revision: .one)

    /// One binary message arrived from the authenticator.
    ///
    /// After the reply, a phone may still send an update (a late linking update, §7.5, §10.8
    /// item 7): it is validated as before the reply, and late replies are discarded (§7.3). An
    /// invalid late message is reported, but the delivered reply stands: the session stays finished.
    public mutating func messageReceived(_ message: [UInt8]) throws(SessionError) -> [Action] {
        do {
            return try handle(message)
        } catch {
            if !isFinished { state = .failed }
            throw error
        }
    }

    /// Whether `candidate` is a whole message from the authenticator: during the handshake, one
    /// the handshake accepts; after it, one that authenticates under the session's read key,
    /// whatever the session then makes of it. The BLE L2CAP deframer asks this to find where a
    /// message ends (CRLF may occur inside ciphertext, protocol.md §10.9), so that a message
    /// that opens but breaks a rule is delivered and refused, not taken for part of a longer one
    /// (which would leave the session waiting for bytes that never come). Changes nothing.
    package func authenticates(_ candidate: [UInt8]) -> Bool {
        switch state {
        case .awaitingPostHandshake(var crypter), .ready(var crypter, _), .awaitingResponse(var crypter, _, _),
            .finished(var crypter, _):
            return (try? crypter.decryptPadded(candidate)) != nil
        case .awaitingHandshakeResponse:
            var trial = self
            return (try? trial.handle(candidate)) != nil
        case .awaitingAdvert, .connecting, .failed:
            return false
        }
    }

    /// The tunnel closed. Fine once the response arrived; otherwise the session failed.
    public mutating func tunnelClosed() throws(SessionError) -> [Action] {
        if case .finished = state { return [] }
        state = .failed
        throw .tunnelClosedEarly
    }

    private mutating func handle(_ message: [UInt8]) throws(SessionError) -> [Action] {
        switch state {
        case .awaitingHandshakeResponse(let initiator):
            do {
                let result = try initiator.processMessage2(message)
                handshakeHash = result.handshakeHash
                state = .awaitingPostHandshake(result.crypter(for: .initiator))
                return []
            } catch {
                throw .handshake(error)
            }
        case .awaitingPostHandshake(var crypter):
            let plaintext = try Self.openFirstMessage(message, crypter: &crypter)
            let postHandshake: PostHandshakeMessage
            do throws(HybridMessageError) {
                postHandshake = try PostHandshakeMessage(decoding: plaintext)
            } catch {
                throw .invalidPostHandshake(.message(error))
            }
            if let linking = postHandshake.linking {
                // Legacy linking at key 2: on a QR connection it must parse and verify (§7.2 check 7).
                do throws(HybridMessageError) {
                    try verifyLinking(linking)
                } catch {
                    throw .invalidPostHandshake(.linking(error))
                }
            }
            var actions: [Action] = [.handshakeCompleted(postHandshake)]
            phoneFeatures = postHandshake.effectiveFeatures
            state = .ready(crypter, revision: postHandshake.revision)
            if let request = queuedRequest {
                queuedRequest = nil
                actions += try sendRequest(request, crypter: crypter, revision: postHandshake.revision)
            }
            return actions
        case .ready(var crypter, let revision):
            let frame = try crypter.sessionDecryptFrame(message, revision: revision)
            guard case .update = frame.type else { throw .invalidFrame(.unsolicited(frame.type)) }
            let linking = try validateUpdate(frame)
            state = .ready(crypter, revision: revision)
            return [.updateReceived(linking: linking)]
        case .awaitingResponse(var crypter, let revision, let request):
            let frame = try crypter.sessionDecryptFrame(message, revision: revision)
            switch frame.type {
            case .update:
                let linking = try validateUpdate(frame)
                state = .awaitingResponse(crypter, revision: revision, request: request)
                return [.updateReceived(linking: linking)]
            case .shutdown:
                throw .invalidFrame(.authenticatorShutdown)
            case .ctap, .json:
                guard frame.type == request.messageType else { throw .invalidFrame(.replyTypeDiffersFromRequest) }
                var actions: [Action] = [.deliverResponse(HybridPayload(frame))]
                if let followUp = followUpRequest {
                    followUpRequest = nil
                    return actions + (try sendRequest(followUp, crypter: crypter, revision: revision))
                }
                if revision == .one {
                    do {
                        actions.append(.send(try crypter.encrypt(HybridFrame.shutdown.encoded(revision: .one))))
                    } catch {
                        throw .transport(error)
                    }
                }
                state = .finished(crypter, revision: revision)
                actions.append(.finish)
                return actions
            }
        case .finished(var crypter, let revision):
            let frame = try crypter.sessionDecryptFrame(message, revision: revision)
            state = .finished(crypter, revision: revision)
            switch frame.type {
            case .update: return [.updateReceived(linking: try validateUpdate(frame))]
            case .shutdown: throw .invalidFrame(.authenticatorShutdown)  // only a client sends it (§7.3)
            case .ctap, .json: return []  // a late reply: discarded (§7.3)
            }
        case .awaitingAdvert, .connecting, .failed:
            throw outOfOrder(.messageReceived)
        }
    }

    /// Opens the authenticator's first message with the new construction or, failing that, the old
    /// one, which a pre-2022 Chromium phone may still use (§10.3; webauthn-rs falls back the same way
    /// on the first message). The construction that worked is used both ways from then on.
    private static func openFirstMessage(
        _ message: [UInt8], crypter: inout TransportCrypter
    ) throws(SessionError) -> [UInt8] {
        do {
            return try crypter.decrypt(message)
        } catch .authenticationFailed {
            var old = crypter.restarted(with: .old)
            guard let plaintext = try? old.decrypt(message) else { throw .transport(.authenticationFailed) }
            crypter = old
            return plaintext
        } catch {
            throw .transport(error)
        }
    }

    private mutating func sendRequest(
        _ request: HybridPayload, crypter: TransportCrypter, revision: HybridProtocolRevision
    ) throws(SessionError) -> [Action] {
        guard revision == .one || request.messageType == .ctap else {
            throw .invalidPostHandshake(.needsRevisionOne(request.messageType))
        }
        // A JSON request goes only to a phone that offered "dc", a CTAP request only to one that
        // offered "ctap" (§7.2; Chromium's RequestDispatcher and its must_support_ctap check).
        let needed = request.feature
        guard phoneFeatures?.contains(needed) ?? true else { throw .invalidPostHandshake(.lacksFeature(needed)) }
        var crypter = crypter
        let plaintext = request.frame.encoded(revision: revision)
        do {
            if sealsRequestIgnoringSequenceLimit { crypter.enforcesSequenceLimit = false }
            let ciphertext = try crypter.encrypt(plaintext)
            state = .awaitingResponse(crypter, revision: revision, request: request)
            return [.send(ciphertext)]
        } catch {
            throw .transport(error)
        }
    }

    /// An update's linking info, if any, must be well formed and correctly signed (§7.4).
    /// Returns the verified linking info, if the update carries any.
    private func validateUpdate(_ frame: HybridFrame) throws(SessionError) -> LinkingInfo? {
        do throws(HybridMessageError) {
            let update = try UpdateMessage(decoding: frame.payload)
            guard let linking = update.linking else { return nil }
            return try verifyLinking(linking)
        } catch {
            throw .invalidFrame(.update(error))
        }
    }

    /// Linking info must be well formed and signed for this handshake (§7.6).
    @discardableResult
    private func verifyLinking(_ linking: CBORValue) throws(HybridMessageError) -> LinkingInfo? {
        guard let handshakeHash else { return nil }
        return try LinkingInfo(
            verifying: linking, clientIdentityKey: configuration.identityKey, handshakeHash: handshakeHash)
    }

    private func outOfOrder(_ event: SessionEvent) -> SessionError {
        .outOfOrder(.event(event, state: state.name))
    }
}

extension ClientSession.State {
    fileprivate var name: String {
        switch self {
        case .awaitingAdvert: return "awaitingAdvert"
        case .connecting: return "connecting"
        case .awaitingHandshakeResponse: return "awaitingHandshakeResponse"
        case .awaitingPostHandshake: return "awaitingPostHandshake"
        case .ready: return "ready"
        case .awaitingResponse: return "awaitingResponse"
        case .finished: return "finished"
        case .failed: return "failed"
        }
    }
}
