import Crypto
import HybridBluetooth
import HybridCore
import HybridDeadline
import HybridTransport
import Logging

/// The phone's side of one QR-initiated hybrid session, with real I/O: the driver around
/// `AuthenticatorSession` (protocol.md §5, §7) that serves requests with a ``CTAPAuthenticator``.
///
/// One run: check the QR code, open `/cable/new` on the tunnel server (or the relay of
/// ``Options/tunnelOrigin``), advertise the encrypted EID until the client's handshake arrives
/// (at most ``Options/clientWaitTimeout``), answer the Noise handshake with the post-handshake
/// getInfo, serve the client's CTAP request, and finish when the client sends shutdown or closes
/// the tunnel after its answer. Advertising is switched off on every exit: success, error,
/// timeout and cancellation. Progress goes to the `onEvent` callback; nothing is printed.
///
/// When the QR code offers the BLE L2CAP channel (CTAP 2.3, key 6, protocol.md §3.4) and the
/// Bluetooth backend can serve it (``Options/offersL2CAP``), the phone also listens on a dynamic
/// LE PSM, advertises connectable with the suffix `{1: PSM}`, and serves the session on whichever
/// channel the client's first message arrives on. If the tunnel cannot be opened then, the run goes
/// on over L2CAP alone (sign-in with no relay reachable).
public struct AuthenticatorRunner: Sendable {
    /// Timeouts, tunnel and QR checks for each run.
    public let options: Options
    /// The CTAP2 engine that answers the client's request.
    public let authenticator: CTAPAuthenticator
    private let advertiser: (any BLEAdvertiser)?
    private let random: RandomSource
    private let logger: Logger
    /// What a conformance phone injects to observe the run and change the phone's behaviour;
    /// ``UntappedPhone`` (every other run) changes nothing.
    package var tap: any AuthenticatorTap = UntappedPhone()
    /// The clock an L2CAP channel's first-message deadline and a late update's wait run and are
    /// measured on; tests replace it.
    package var clock: any Clock<Duration> = ContinuousClock()
    /// Opens the L2CAP listener for a backend; tests hand out socket pairs instead.
    package var listenL2CAP: @Sendable (BLEBackend) async throws -> any L2CAPChannelSource = {
        try await $0.listenL2CAP()
    }

    /// - Parameters:
    ///   - options: the domain, relay, Bluetooth backend and time limits.
    ///   - authenticator: answers the CTAP requests; its getInfo goes into the
    ///     post-handshake message.
    ///   - advertiser: overrides the advertiser of ``Options/ble`` (tests wrap one to watch it).
    ///   - random: the advert nonce and the ephemeral handshake key.
    ///   - logger: routing IDs and states only; never secrets, payloads or tunnel IDs.
    public init(
        options: Options, authenticator: CTAPAuthenticator, advertiser: (any BLEAdvertiser)? = nil,
        random: RandomSource = .system, logger: Logger
    ) {
        self.options = options
        self.authenticator = authenticator
        self.advertiser = advertiser
        self.random = random
        self.logger = logger
    }

    /// Runs one session for the scanned `qrCode` text. The last event is always
    /// ``AuthenticatorEvent/done(_:)`` or ``AuthenticatorEvent/error(message:)``.
    ///
    /// - Returns: the requests answered (see ``AuthenticatorRunSummary/served``).
    /// - Throws: ``AuthenticatorRunnerError`` only.
    public func run(
        qrCode: String, onEvent: @escaping @Sendable (AuthenticatorEvent) -> Void
    ) async throws -> AuthenticatorRunSummary {
        do {
            let checked = try Self.check(qrCode: qrCode, options: options)
            let listener = await l2capListener(for: checked, onEvent: onEvent)
            let session = try makeSession(for: checked, l2capPSM: listener?.psm)
            let limit = options.overallTimeout
            // On the wall clock: a test's clock times the session's own deadlines, not the whole run.
            let summary = try await withTimeLimit(
                limit, on: ContinuousClock(), throwing: AuthenticatorRunnerError.timedOut(after: limit ?? .zero)
            ) {
                try await self.serve(session, domainID: checked.domainID, listener: listener, onEvent: onEvent)
            }
            onEvent(.done(summary))
            return summary
        } catch {
            let failure = AuthenticatorRunnerError(classifying: error, cancelled: Task.isCancelled)
            logger.debug("run failed", metadata: ["error": "\(failure)"])
            onEvent(.error(message: failure.description))
            throw failure
        }
    }

    /// A session with a fresh advert nonce and ephemeral key from ``random``, advertising
    /// `l2capPSM` if the QR code asked for L2CAP.
    func makeSession(for checked: CheckedQRCode, l2capPSM: UInt16? = nil) throws -> AuthenticatorSession {
        guard let nonce = AdvertNonce(bytes: random.bytes(AdvertNonce.byteCount)) else {
            throw AuthenticatorRunnerError.randomSourceFailed
        }
        var configuration = AuthenticatorSession.Configuration(
            qrSecret: checked.payload.secret, clientIdentityKey: checked.payload.identityKey,
            domainID: checked.domainID, getInfo: authenticator.getInfo.encoded)
        configuration.qrChannels = checked.payload.channels
        configuration.l2capPSM = l2capPSM
        configuration.features = offeredFeatures(for: checked.payload)
        tap.configureSession(&configuration)
        return AuthenticatorSession(
            configuration: configuration, advertNonce: nonce, ephemeralKey: try makeEphemeralKey())
    }

    private func makeEphemeralKey() throws -> P256.KeyAgreement.PrivateKey {
        guard let key = P256.KeyAgreement.PrivateKey(scalarFrom: random.bytes) else {
            throw AuthenticatorRunnerError.randomSourceFailed
        }
        return key
    }

    /// The listener for the client's BLE L2CAP channel, if the QR code offers that channel and
    /// this phone can serve it; otherwise `nil` (and the reason is logged): the run is tunnel-only.
    private func l2capListener(
        for checked: CheckedQRCode, onEvent: @Sendable (AuthenticatorEvent) -> Void
    ) async -> (any L2CAPChannelSource)? {
        guard options.offersL2CAP, checked.payload.channels?.contains(.bleL2CAP) == true else { return nil }
        do {
            let listener = try await listenL2CAP(options.ble)
            logger.debug("listening for the client's L2CAP channel", metadata: ["l2cap.psm": "\(listener.psm)"])
            onEvent(.listeningL2CAP(psm: listener.psm))
            return listener
        } catch {
            logger.info("not offering the BLE L2CAP channel", metadata: ["reason": "\(error)"])
            return nil
        }
    }

    /// Opens the tunnel and serves the session on it, or on `listener`'s channel; advertising is off
    /// when this returns or throws. With a listener, a tunnel that cannot be opened is not fatal.
    private func serve(
        _ session: AuthenticatorSession, domainID: TunnelDomainID, listener: (any L2CAPChannelSource)?,
        onEvent: @escaping @Sendable (AuthenticatorEvent) -> Void
    ) async throws -> AuthenticatorRunSummary {
        var session = session
        let first = try session.start()
        guard first.count == 1, case .openTunnel(var url) = first[0] else {
            throw AuthenticatorRunnerError.unexpectedSessionAction
        }
        if let origin = options.tunnelOrigin { url = TunnelURL(origin: origin, path: url.path) }
        onEvent(.waitingForTunnel(origin: url.origin, domainID: domainID))
        let advertising = AdvertisingControl(
            advertiser: advertiser ?? options.ble.makeAdvertiser(logger: logger), connectable: listener != nil,
            emit: onEvent)
        let client = TunnelClient(configuration: tunnelClientConfiguration, logger: logger)
        let ready = session
        var tunnelOpened = false
        do {
            let summary: AuthenticatorRunSummary
            do {
                summary = try await client.withConnection(to: url) { connection in
                    tunnelOpened = true
                    return try await self.serve(
                        connection, listener: listener, session: ready, advertising: advertising, onEvent: onEvent)
                }
            } catch let error where !tunnelOpened && listener != nil && !Task.isCancelled {
                let reason = AuthenticatorRunnerError(classifying: error, cancelled: false)
                logger.info("no tunnel; serving over L2CAP only", metadata: ["reason": "\(reason)"])
                onEvent(.tunnelUnavailable(reason: reason.description))
                summary = try await serve(
                    nil, listener: listener, session: ready, advertising: advertising, onEvent: onEvent)
            }
            await advertising.stop()
            return summary
        } catch {
            await advertising.stop()
            throw error
        }
    }

    /// With the tunnel open (or none, over L2CAP alone): advertise, then run one serve loop per
    /// channel next to the no-client watchdog. The first channel the client speaks on wins.
    private func serve(
        _ connection: TunnelConnection?, listener: (any L2CAPChannelSource)?, session: AuthenticatorSession,
        advertising: AdvertisingControl, onEvent: @escaping @Sendable (AuthenticatorEvent) -> Void
    ) async throws -> AuthenticatorRunSummary {
        do {
            var session = session
            let routingID: RoutingID
            if let connection {
                routingID = try connection.routingID()
                logger.info("tunnel open", metadata: ["routing.id": "\(routingID.hex)"])
                onEvent(.tunnelOpened(routingID: routingID))
            } else {
                // No relay routes this ID; the client reaches the phone over L2CAP.
                guard let unrouted = RoutingID(bytes: random.bytes(RoutingID.byteCount)) else {
                    throw AuthenticatorRunnerError.randomSourceFailed
                }
                routingID = unrouted
            }
            for action in try session.tunnelOpened(routingID: tap.advertisedRoutingID(routingID)) {
                guard case .startAdvertising(let serviceData) = action else {
                    throw AuthenticatorRunnerError.unexpectedSessionAction
                }
                try await advertising.start(serviceData: serviceData)
            }
            let (signal, clientConnected) = AsyncStream<Void>.makeStream()
            let window = options.clientWaitTimeout
            let context = ServeContext(
                session: session, claim: ClientChannelClaim(), advertising: advertising, authenticator: authenticator,
                digitalCredentials: options.digitalCredentials, emit: onEvent, clientConnected: clientConnected,
                tap: tap, clock: clock, logger: logger)
            return try await withThrowingTaskGroup(of: AuthenticatorRunSummary?.self) { group in
                if let connection {
                    group.addTask {
                        var loop = context.loop(on: TunnelClientChannel(connection))
                        return try await loop.run()
                    }
                }
                if let listener {
                    group.addTask { try await context.serveL2CAP(from: listener, tunnelToo: connection != nil) }
                }
                group.addTask {
                    try await withTimeLimit(
                        window, on: ContinuousClock(),
                        throwing: AuthenticatorRunnerError.noClientConnected(within: window)
                    ) {
                        for await _ in signal { return }
                    }
                    return nil
                }
                defer { group.cancelAll() }
                while let result = try await group.next() {
                    if let summary = result { return summary }
                }
                throw CancellationError()
            }
        } catch {
            // Advertising off first (it may be on the air), then a clean close frame.
            await advertising.stop()
            await connection?.close(timeout: .seconds(1))
            throw error
        }
    }

    private var tunnelClientConfiguration: TunnelClient.Configuration {
        var configuration = TunnelClient.Configuration()
        configuration.connectTimeout = options.tunnelConnectTimeout
        configuration.handshakeTimeout = options.tunnelConnectTimeout
        configuration.additionalCAFile = options.caFile
        if let size = tap.maxMessageSize { configuration.maxMessageSize = size }
        return configuration
    }
}
