import Crypto

/// The phone's side of a QR-initiated hybrid session, as a sans-IO state machine.
///
/// The driver feeds it events and performs the actions it returns, in order. It holds no
/// sockets, timers or randomness: the advert nonce and the ephemeral key are parameters.
/// Chromium: the `TunnelTransport` and `CTAP2Processor` of `v2_authenticator.cc`.
///
/// ```
/// start()                       → openTunnel(/cable/new/<tunnel ID>)
/// tunnelOpened(routingID:)      → startAdvertising(20-byte service data)
/// messageReceived(msg1)         → send(msg2), send(post-handshake), send(update), stopAdvertising
/// messageReceived(request)      → deliverRequest
/// requestCompleted(response)    → send(response)
/// messageReceived(shutdown)     → finish
/// ```
///
/// One QR code buys one request: the session serves exactly one CTAP (or JSON) request, as real
/// phones do (protocol.md §7.5, §8.1), and fails with ``InvalidFrameReason/moreThanOneRequest`` on a
/// second one, so the driver closes the tunnel. A bare authenticatorGetInfo (`04`, no parameters)
/// does not count: it only repeats the post-handshake message, and the Chromium phone answers it.
public struct AuthenticatorSession: Sendable {
    /// What the phone knows before the tunnel opens.
    public struct Configuration: Sendable {
        /// The QR secret (QR key 1).
        public var qrSecret: QRSecret
        /// The client's QR identity key (QR key 0, decompressed).
        public var clientIdentityKey: P256.KeyAgreement.PublicKey
        /// The tunnel-server domain this phone uses and advertises.
        public var domainID: TunnelDomainID
        /// This authenticator's `authenticatorGetInfo` response, the CBOR map without status byte.
        public var getInfo: [UInt8]
        /// Post-handshake features (key 3), e.g. `["ctap"]`.
        public var features: [HybridFeature]
        /// Whether to send a Chromium-style padded update message right after the post-handshake
        /// message, as Android phones do (§7.4).
        public var sendsUpdateMessage: Bool
        /// Linking data to offer in that update. Set it only when the QR code accepts linking (key 4).
        public var linking: PhoneLinkingIdentity?
        /// Send the update when the client shuts down instead of right after the post-handshake
        /// message, as Chromium's test phone `LateLinkingDevice` does (§5.4, §7.5).
        package var sendsUpdateLate = false
        /// The protocol revision to speak (§10.2): `.one`; `.zero` imitates a legacy phone (padded
        /// post-handshake map, no type bytes, no update, no shutdown).
        package var revision: HybridProtocolRevision = .one
        /// The crypter construction (§10.3): `.new`; `.old` imitates a pre-2022 Chromium phone.
        package var construction: TransportCrypter.Construction = .new
        /// `true` imitates a phone without the crypter's limit (§7.1), which opens a message sealed
        /// past 2^24 − 1 (``TransportCrypter/enforcesSequenceLimit``): the conformance phone's fault.
        package var ignoresSequenceLimit = false
        /// The channels the QR code offered (key 6), if it had the key.
        public var qrChannels: [DataTransferChannel]?
        /// The PSM of this phone's insecure LE L2CAP channel, if it listens on one. It is advertised
        /// in the CTAP 2.3 suffix only when ``qrChannels`` includes BLE L2CAP: a phone never
        /// appends a suffix the QR code did not ask for (§3.4).
        public var l2capPSM: UInt16?

        /// The suffix to append to the advert: `{1: PSM}` when the QR code asked for L2CAP and
        /// this phone listens, else none.
        public var advertSuffix: AdvertSuffix? {
            guard let l2capPSM, qrChannels?.contains(.bleL2CAP) == true else { return nil }
            return AdvertSuffix(psm: l2capPSM)
        }

        /// The inputs of one session; the defaults are what a current Android phone does.
        public init(
            qrSecret: QRSecret, clientIdentityKey: P256.KeyAgreement.PublicKey, domainID: TunnelDomainID,
            getInfo: [UInt8], features: [HybridFeature] = [.ctap], sendsUpdateMessage: Bool = true,
            linking: PhoneLinkingIdentity? = nil
        ) {
            self.qrSecret = qrSecret
            self.clientIdentityKey = clientIdentityKey
            self.domainID = domainID
            self.getInfo = getInfo
            self.features = features
            self.sendsUpdateMessage = sendsUpdateMessage
            self.linking = linking
        }
    }

    /// What the driver must do next.
    public enum Action: Sendable {
        /// Open the tunnel WebSocket at this `/cable/new` URL (the driver may swap the origin for a
        /// self-hosted relay) and report ``AuthenticatorSession/tunnelOpened(routingID:)``.
        case openTunnel(TunnelURL)
        /// Advertise this service data under UUID 0xFFF9 until told to stop.
        case startAdvertising(serviceData: [UInt8])
        /// Stop advertising.
        case stopAdvertising
        /// Send one binary WebSocket message.
        case send([UInt8])
        /// Serve this request and report ``AuthenticatorSession/requestCompleted(_:)``.
        case deliverRequest(HybridPayload)
        /// The client said it is done: close the tunnel normally.
        case finish
    }

    fileprivate enum State {
        case idle
        case openingTunnel
        case awaitingHandshake(psk: PSK)
        case ready(TransportCrypter)
        case processing(TransportCrypter, request: HybridPayload)
        case finished
        case failed
    }

    private let configuration: Configuration
    private let advertNonce: AdvertNonce
    private let ephemeralKey: P256.KeyAgreement.PrivateKey
    fileprivate var state: State = .idle
    private var requestsServed = 0
    /// Whether the one request a session serves (anything but getInfo) has arrived.
    private var servedItsRequest = false

    /// The Noise handshake hash, once the handshake is done (the channel binding for linking).
    public private(set) var handshakeHash: [UInt8]?
    /// The decrypted plaintext of the last client message, padding included, if it authenticated:
    /// what an observer such as hybrid-conformance judges. `nil` for a handshake message.
    package private(set) var lastClientPlaintext: [UInt8]?

    /// A bare authenticatorGetInfo request (command 0x04, CTAP 2.1 §6.4), which does not use up the
    /// QR code's one request.
    static let getInfoCommand: UInt8 = 0x04

    /// - Parameters:
    ///   - configuration: The QR-derived inputs and this authenticator's getInfo.
    ///   - advertNonce: 10 random bytes for the advert.
    ///   - ephemeralKey: A fresh P-256 key for this handshake only.
    public init(configuration: Configuration, advertNonce: AdvertNonce, ephemeralKey: P256.KeyAgreement.PrivateKey) {
        self.configuration = configuration
        self.advertNonce = advertNonce
        self.ephemeralKey = ephemeralKey
    }

    /// Whether the session ended normally.
    public var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// Starts the session: the phone opens its tunnel first (§5.4).
    public mutating func start() throws(SessionError) -> [Action] {
        guard case .idle = state else { throw outOfOrder(.start) }
        state = .openingTunnel
        return [.openTunnel(.new(domain: configuration.domainID, tunnelID: configuration.qrSecret.tunnelID))]
    }

    /// The relay accepted the tunnel and assigned `routingID`.
    public mutating func tunnelOpened(routingID: RoutingID) throws(SessionError) -> [Action] {
        guard case .openingTunnel = state else { throw outOfOrder(.tunnelOpened) }
        let plaintext = AdvertPlaintext(nonce: advertNonce, routingID: routingID, domainID: configuration.domainID)
        state = .awaitingHandshake(psk: configuration.qrSecret.psk(eidPlaintext: plaintext))
        let suffix = configuration.advertSuffix?.encoded ?? []
        return [.startAdvertising(serviceData: configuration.qrSecret.eidKey.encrypt(plaintext) + suffix)]
    }

    /// One binary message arrived from the client.
    public mutating func messageReceived(_ message: [UInt8]) throws(SessionError) -> [Action] {
        lastClientPlaintext = nil
        do {
            return try handle(message)
        } catch {
            state = .failed
            throw error
        }
    }

    /// Whether `candidate` is a whole message from the client: during the handshake, one the
    /// handshake accepts; after it, one that authenticates under the session's read key, whatever
    /// the session then makes of it. The BLE L2CAP deframer asks this to find where a message ends
    /// (CRLF may occur inside ciphertext, protocol.md §10.9), so that a message that opens but
    /// breaks a rule (a second request) is delivered and refused, not taken for part of a longer
    /// one (which would leave the phone waiting for bytes that never come). Changes nothing.
    package func authenticates(_ candidate: [UInt8]) -> Bool {
        switch state {
        case .ready(var crypter), .processing(var crypter, _):
            return (try? crypter.decryptPadded(candidate)) != nil
        case .awaitingHandshake:
            var trial = self
            return (try? trial.handle(candidate)) != nil
        case .idle, .openingTunnel, .finished, .failed:
            return false
        }
    }

    /// The request delivered by ``Action/deliverRequest(_:)`` has its response, of the same type.
    public mutating func requestCompleted(_ response: HybridPayload) throws(SessionError) -> [Action] {
        guard case .processing(var crypter, let request) = state else { throw outOfOrder(.requestCompleted) }
        guard response.messageType == request.messageType else { throw .outOfOrder(.responseTypeDiffersFromRequest) }
        do {
            let ciphertext = try crypter.encrypt(response.frame.encoded(revision: configuration.revision))
            requestsServed += 1
            state = .ready(crypter)
            return [.send(ciphertext)]
        } catch {
            state = .failed
            throw .transport(error)
        }
    }

    /// The tunnel closed. Normal after shutdown, or after a revision-0 client got its answer.
    public mutating func tunnelClosed() throws(SessionError) -> [Action] {
        switch state {
        case .finished:
            return []
        case .ready where requestsServed > 0:
            state = .finished
            return []
        case .idle, .openingTunnel, .awaitingHandshake, .ready, .processing, .failed:
            state = .failed
            throw .tunnelClosedEarly
        }
    }

    private mutating func handle(_ message: [UInt8]) throws(SessionError) -> [Action] {
        switch state {
        case .awaitingHandshake(let psk):
            return try respondToHandshake(message, psk: psk)
        case .ready(var crypter):
            let frame = try crypter.sessionDecryptFrame(
                message, revision: configuration.revision, padded: &lastClientPlaintext)
            switch frame.type {
            case .ctap, .json:
                let request = HybridPayload(frame)
                // JSON only where "dc" was offered, CTAP (getInfo too) only where "ctap" was (§7.2).
                guard configuration.revision == .zero || configuration.features.contains(request.feature) else {
                    throw .invalidFrame(.featureNotOffered(request.feature))
                }
                if request != .ctap([Self.getInfoCommand]) {
                    guard !servedItsRequest else { throw .invalidFrame(.moreThanOneRequest) }
                    servedItsRequest = true
                }
                state = .processing(crypter, request: request)
                return [.deliverRequest(request)]
            case .update:
                try Self.checkClientUpdate(frame)
                state = .ready(crypter)
                return []
            case .shutdown:
                state = .finished
                guard sendsUpdate, configuration.sendsUpdateLate, let handshakeHash else { return [.finish] }
                return [.send(try update(crypter: &crypter, handshakeHash: handshakeHash)), .finish]
            }
        case .processing(var crypter, let request):
            let frame = try crypter.sessionDecryptFrame(
                message, revision: configuration.revision, padded: &lastClientPlaintext)
            switch frame.type {
            case .update:
                try Self.checkClientUpdate(frame)
                state = .processing(crypter, request: request)
                return []
            case .shutdown:
                state = .finished
                return [.finish]
            case .ctap, .json:
                throw .invalidFrame(.secondRequest)
            }
        case .idle, .openingTunnel, .finished, .failed:
            throw outOfOrder(.messageReceived)
        }
    }

    /// An update from the client means nothing to a phone; like Chromium's, it only has to be
    /// CBOR (§7.3).
    private static func checkClientUpdate(_ frame: HybridFrame) throws(SessionError) {
        do throws(CBORError) {
            _ = try CBORDecoder.decode(frame.payload)
        } catch {
            throw .invalidFrame(.clientUpdateNotCBOR(error))
        }
    }

    private mutating func respondToHandshake(_ message1: [UInt8], psk: PSK) throws(SessionError) -> [Action] {
        let message2: [UInt8]
        let result: HandshakeResult
        do {
            (message2, result) = try HandshakeResponder.respond(
                to: message1, pattern: .knpsk0(initiatorStaticKey: configuration.clientIdentityKey), psk: psk,
                ephemeralKey: ephemeralKey)
        } catch {
            throw .handshake(error)
        }
        handshakeHash = result.handshakeHash
        var crypter = result.crypter(for: .responder)
        if configuration.construction != crypter.construction {
            crypter = crypter.restarted(with: configuration.construction)
        }
        crypter.enforcesSequenceLimit = !configuration.ignoresSequenceLimit
        // The answers go out before the advert is switched off: stopping it can take a round trip
        // through bluetoothd (up to its D-Bus timeout), and the client must not wait for that
        // (its L2CAP channel gives the first message a deadline). Chromium's phone, too, answers
        // at once and leaves the advert to the platform.
        var actions: [Action] = [.send(message2)]
        do {
            // Without "ctap" there is no getInfo to send (Chromium's phone omits key 1 then).
            let offersCTAP = configuration.revision == .zero || configuration.features.contains(.ctap)
            let postHandshake = PostHandshakeMessage(
                getInfo: offersCTAP ? configuration.getInfo : nil, features: configuration.features,
                revision: configuration.revision)
            actions.append(.send(try crypter.encrypt(postHandshake.encoded())))
        } catch {
            throw .transport(error)
        }
        if sendsUpdate, !configuration.sendsUpdateLate {
            actions.append(.send(try update(crypter: &crypter, handshakeHash: result.handshakeHash)))
        }
        actions.append(.stopAdvertising)
        state = .ready(crypter)
        return actions
    }

    /// Whether this phone sends an update message at all (revision 0 has none).
    private var sendsUpdate: Bool { configuration.sendsUpdateMessage && configuration.revision == .one }

    /// The encrypted update message, with linking info if configured (§7.4).
    private func update(crypter: inout TransportCrypter, handshakeHash: [UInt8]) throws(SessionError) -> [UInt8] {
        let linking = configuration.linking.map {
            $0.linkingInfo(clientIdentityKey: configuration.clientIdentityKey, handshakeHash: handshakeHash)
        }
        do {
            return try crypter.encrypt(UpdateMessage(linking: linking).frame().encoded(revision: .one))
        } catch {
            throw .transport(error)
        }
    }

    private func outOfOrder(_ event: SessionEvent) -> SessionError {
        .outOfOrder(.event(event, state: state.name))
    }
}

extension AuthenticatorSession.State {
    fileprivate var name: String {
        switch self {
        case .idle: return "idle"
        case .openingTunnel: return "openingTunnel"
        case .awaitingHandshake: return "awaitingHandshake"
        case .ready: return "ready"
        case .processing: return "processing"
        case .finished: return "finished"
        case .failed: return "failed"
        }
    }
}
