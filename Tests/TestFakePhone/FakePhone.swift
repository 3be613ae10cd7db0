import Crypto
import HybridAuthenticator
import HybridBluetooth
import HybridCore
import HybridTransport
import Logging
import TestSupport

/// The phone's side for loopback tests of the client and of the client conformance mode, driven
/// directly from `AuthenticatorSession` and `CTAPAuthenticator` (an independent driver: it shares
/// no code with the authenticator role's runner). Test double only: the product has no fault
/// switches.
package struct FakePhone: Sendable {
    /// How this test phone departs from the protocol on the tunnel.
    package enum Behaviour: Sendable {
        /// Serves the request with the CTAP engine.
        case normal
        /// Answers the request with random bytes instead of a ciphertext.
        case garbageInsteadOfResponse
        /// Advertises a routing ID the relay never handed out, without opening a tunnel.
        case advertiseUnknownTunnel
        /// Takes the request and never answers (a user who walks away from the phone).
        case neverAnswers
        /// Answers, then closes the tunnel at once without waiting for the client's shutdown
        /// (phones handle one command and hang up, protocol.md §7.5).
        case hangsUpAfterResponse
        /// Chromium's `LateLinkingDevice` (§5.4): after the client's shutdown, waits for `gate`,
        /// then sends an update with signed linking info and closes.
        case lateLinkingUpdate(gate: @Sendable () async -> Void)
        /// After the client's shutdown, keeps the tunnel open until the client closes it.
        case staysOpenAfterShutdown
        /// After the client's shutdown, sends random bytes, then waits for the client to close.
        case garbageAfterShutdown
    }

    /// What the phone did.
    package struct Record: Sendable {
        /// The CTAP response it sent (status + CBOR), if it got that far.
        package var ctapResponse: [UInt8]?
        /// Number of tunnel messages it received.
        package var messagesReceived = 0
        /// Whether the client's shutdown arrived.
        package var shutdownReceived = false
        /// QR key 6 as the phone read it.
        package var qrChannels: [DataTransferChannel]?
        /// The service data the phone advertised.
        package var advert: [UInt8] = []

        package init(qrChannels: [DataTransferChannel]? = nil) { self.qrChannels = qrChannels }
    }

    package let engine: CTAPAuthenticator
    package let relay: TunnelServerOrigin
    package let air: SimulatedAir
    package var behaviour: Behaviour = .normal
    /// The PSM to put in the advert suffix when the QR code offers BLE L2CAP (CTAP 2.3, §3.4); the
    /// phone still serves over the tunnel.
    package var l2capPSM: UInt16?
    package let logger = Logger(label: "fake-phone", factory: { _ in SwiftLogNoOpLogHandler() })

    // What a phone can be made to do differently in what it says (the client conformance tests'
    // faulty phones are built on these); the defaults are what a conforming phone does.

    /// Serves nothing for a QR code without a timestamp (key 3), as a phone that refuses a code
    /// whose age it cannot check.
    package var refusesUndatedQRCode = false
    /// The getInfo of its post-handshake message; `nil` is the engine's.
    package var getInfo: [UInt8]?
    /// The features of its post-handshake message (key 3).
    package var features: [HybridFeature] = [.ctap]
    /// The channels it acts as if the QR code had offered; `nil` is what the QR code says.
    package var qrChannels: [DataTransferChannel]?
    /// Answers a request (command byte + CBOR) with a response (status + CBOR); `nil` lets the
    /// engine answer.
    package var answer: (@Sendable (_ request: [UInt8]) async -> [UInt8])?

    package init(
        store: any PasskeyStore = InMemoryPasskeyStore(),
        userInteraction: any UserInteraction = AutoApproveUserInteraction(userVerification: true),
        relay: TunnelServerOrigin,
        air: SimulatedAir,
        behaviour: Behaviour = .normal
    ) {
        self.init(
            engine: CTAPAuthenticator(store: store, userInteraction: userInteraction), relay: relay, air: air,
            behaviour: behaviour)
    }

    package init(
        engine: CTAPAuthenticator, relay: TunnelServerOrigin, air: SimulatedAir, behaviour: Behaviour = .normal
    ) {
        self.engine = engine
        self.relay = relay
        self.air = air
        self.behaviour = behaviour
    }

    /// Serves one session for the QR code `qrURL` until the client shuts down or the tunnel closes.
    package func serve(qrURL: String) async throws -> Record {
        let qr = try QRCodePayload(url: qrURL)
        if refusesUndatedQRCode, qr.timestamp == nil { return Record() }
        guard let nonce = AdvertNonce(bytes: randomBytes(10)) else { throw TestFailure("nonce") }
        var configuration = AuthenticatorSession.Configuration(
            qrSecret: qr.secret, clientIdentityKey: qr.identityKey, domainID: .google,
            getInfo: getInfo ?? engine.getInfo.encoded, features: features)
        if case .lateLinkingUpdate = behaviour {
            configuration.sendsUpdateLate = true
            configuration.linking = Self.linkingIdentity
        }
        configuration.qrChannels = qrChannels ?? qr.channels
        configuration.l2capPSM = l2capPSM
        var session = AuthenticatorSession(
            configuration: configuration, advertNonce: nonce, ephemeralKey: P256.KeyAgreement.PrivateKey())
        guard case .openTunnel(let url) = try session.start().first else { throw TestFailure("no openTunnel") }
        let advertiser = BLEBackend.simulated(air).makeAdvertiser(logger: logger)
        if case .advertiseUnknownTunnel = behaviour {
            guard let routingID = RoutingID(bytes: [0xEE, 0xEE, 0xEE]) else { throw TestFailure("routing ID") }
            for case .startAdvertising(let serviceData) in try session.tunnelOpened(routingID: routingID) {
                return try await advertiser.withAdvertising(BLEServiceDataAdvert(serviceData: serviceData)) {
                    // Advertises until the ceremony helper cancels this phone (AsyncStream's iteration
                    // ends on cancellation): no time limit for a slow client to outrun.
                    let (parked, keepOpen) = AsyncStream<Never>.makeStream()
                    for await _ in parked {}
                    keepOpen.finish()
                    try Task.checkCancellation()
                    return Record()
                }
            }
            throw TestFailure("no advert")
        }
        let client = TunnelClient(logger: logger)
        do {
            var record = try await client.withConnection(to: TunnelURL(origin: relay, path: url.path)) {
                connection in
                try await exchange(session: &session, connection: connection, advertiser: advertiser)
            }
            record.qrChannels = qr.channels
            await advertiser.stopAdvertising()
            return record
        } catch {
            await advertiser.stopAdvertising()
            throw error
        }
    }

    private func exchange(
        session: inout AuthenticatorSession,
        connection: TunnelConnection,
        advertiser: any BLEAdvertiser
    ) async throws -> Record {
        var record = Record()
        var pending = try session.tunnelOpened(routingID: try connection.routingID())
        var messages = connection.messages.makeAsyncIterator()
        while true {
            var index = 0
            while index < pending.count {
                switch pending[index] {
                case .openTunnel: break
                case .startAdvertising(let serviceData):
                    record.advert = serviceData
                    try await advertiser.startAdvertising(BLEServiceDataAdvert(serviceData: serviceData))
                case .stopAdvertising:
                    await advertiser.stopAdvertising()
                case .send(let bytes):
                    try await connection.send(bytes)
                case .deliverRequest(let request):
                    if case .garbageInsteadOfResponse = behaviour {
                        try await connection.send(randomBytes(80))
                    } else if case .neverAnswers = behaviour {
                        break
                    } else {
                        let response: [UInt8]
                        if let answer {
                            response = await answer(request.bytes)
                        } else {
                            response = await engine.process(request.bytes).response
                        }
                        record.ctapResponse = response
                        pending += try session.requestCompleted(.ctap(response))
                        if case .hangsUpAfterResponse = behaviour {
                            for case .send(let bytes) in pending[(index + 1)...] { try await connection.send(bytes) }
                            await connection.close()
                            return record
                        }
                    }
                case .finish:
                    switch behaviour {
                    case .staysOpenAfterShutdown:
                        break
                    case .garbageAfterShutdown:
                        try await connection.send(randomBytes(64))
                    case .normal, .lateLinkingUpdate, .garbageInsteadOfResponse, .advertiseUnknownTunnel, .neverAnswers,
                        .hangsUpAfterResponse:
                        await connection.close()
                        return record
                    }
                    while try await messages.next() != nil { record.messagesReceived += 1 }
                    return record
                }
                index += 1
            }
            guard let message = try await messages.next() else { return record }
            record.messagesReceived += 1
            pending = try session.messageReceived(message)
            if session.isFinished {
                record.shutdownReceived = true
                if case .lateLinkingUpdate(let gate) = behaviour { await gate() }
            }
        }
    }

    /// The linking identity a ``Behaviour/lateLinkingUpdate(gate:)`` phone offers (§7.6).
    package static let linkingIdentity = PhoneLinkingIdentity(
        contactID: [1, 2, 3], pairingID: [UInt8](repeating: 4, count: 8), linkSecret: [UInt8](repeating: 5, count: 32),
        identityKey: P256.KeyAgreement.PrivateKey(), phoneName: "Late phone")
}
