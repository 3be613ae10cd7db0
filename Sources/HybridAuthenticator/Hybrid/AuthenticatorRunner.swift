import Crypto
import HybridBluetooth
import HybridCore
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
public struct AuthenticatorRunner: Sendable {
    /// Timeouts, tunnel and QR checks for each run.
    public let options: Options
    /// The CTAP2 engine that answers the client's request.
    public let authenticator: CTAPAuthenticator
    private let advertiser: (any BLEAdvertiser)?
    private let random: RandomSource
    private let logger: Logger
    /// Observation and behaviour hooks for hybrid-conformance; the default changes nothing.
    package var tap = AuthenticatorTap()

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
            let session = try makeSession(for: checked)
            let limit = options.overallTimeout
            let summary = try await withTimeLimit(limit, throwing: .timedOut(after: limit ?? .zero)) {
                try await self.serve(session, domainID: checked.domainID, onEvent: onEvent)
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

    /// A session with a fresh advert nonce and ephemeral key from ``random``.
    func makeSession(for checked: CheckedQRCode) throws -> AuthenticatorSession {
        guard let nonce = AdvertNonce(bytes: random.bytes(AdvertNonce.byteCount)) else {
            throw AuthenticatorRunnerError.randomSourceFailed
        }
        var configuration = AuthenticatorSession.Configuration(
            qrSecret: checked.payload.secret, clientIdentityKey: checked.payload.identityKey,
            domainID: checked.domainID, getInfo: authenticator.getInfo.encoded)
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

    /// Opens the tunnel and serves it; advertising is off when this returns or throws.
    private func serve(
        _ session: AuthenticatorSession, domainID: TunnelDomainID,
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
            advertiser: advertiser ?? options.ble.makeAdvertiser(logger: logger), emit: onEvent)
        let client = TunnelClient(configuration: tunnelClientConfiguration, logger: logger)
        do {
            let summary = try await client.withConnection(to: url) { connection in
                try await self.serve(connection, session: session, advertising: advertising, onEvent: onEvent)
            }
            await advertising.stop()
            return summary
        } catch {
            await advertising.stop()
            throw error
        }
    }

    /// Inside the open tunnel: advertise, then run the serve loop next to the no-client watchdog.
    private func serve(
        _ connection: TunnelConnection, session: AuthenticatorSession, advertising: AdvertisingControl,
        onEvent: @escaping @Sendable (AuthenticatorEvent) -> Void
    ) async throws -> AuthenticatorRunSummary {
        do {
            var session = session
            let routingID = try connection.routingID()
            logger.info("tunnel open", metadata: ["routing.id": "\(routingID.hex)"])
            onEvent(.tunnelOpened(routingID: routingID))
            for action in try session.tunnelOpened(routingID: tap.advertisedRoutingID(routingID)) {
                guard case .startAdvertising(let serviceData) = action else {
                    throw AuthenticatorRunnerError.unexpectedSessionAction
                }
                try await advertising.start(serviceData: serviceData)
            }
            let (signal, clientConnected) = AsyncStream<Void>.makeStream()
            let window = options.clientWaitTimeout
            let ready = session
            return try await withThrowingTaskGroup(of: AuthenticatorRunSummary?.self) { group in
                group.addTask {
                    var loop = TunnelServeLoop(
                        session: ready, connection: connection, advertising: advertising,
                        authenticator: self.authenticator, emit: onEvent, clientConnected: clientConnected,
                        tap: self.tap, logger: self.logger)
                    return try await loop.run()
                }
                group.addTask {
                    try await waitForSignal(signal, within: window, throwing: .noClientConnected(within: window))
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
            await connection.close(timeout: .seconds(1))
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
