import Crypto
import Foundation
import HybridBluetooth
import HybridCTAP
import HybridCore
import HybridTransport
import Logging
import Synchronization

/// Runs one WebAuthn ceremony with a phone over hybrid (the desktop's side, protocol.md §0.3).
///
/// Shows a QR code (through ``HybridClientEvent/qr(url:)``), scans BLE for the phone's advert,
/// opens the tunnel the advert names, runs the handshake as initiator, sends the one CTAP2 request
/// (mapped with the getInfo from the post-handshake message), sends shutdown and returns the
/// response JSON. A driver only: every protocol byte comes from `ClientSession`.
///
/// ```swift
/// let runner = HybridClientRunner(options: .init(bluetooth: .bluez(adapter: nil)))
/// let response = try await runner.run(.registration(ceremony)) { event in show(event) }
/// ```
///
/// Two layers, one path: ``forward(ctapRequest:requestType:events:)`` carries CTAP2 bytes to the
/// phone and back unchanged, and ``run(_:events:)`` builds a WebAuthn ceremony's request on it and
/// maps the reply to the response JSON. Both run one session that carries one request frame and
/// returns the reply frame.
///
/// ``run(_:events:onResponse:)`` also keeps the tunnel open after the shutdown for a late update,
/// as protocol.md §7.5 asks; the calls that return the response close it right after the shutdown.
///
/// Cancelling the calling task ends the ceremony cleanly (scanning stops, the tunnel closes).
public struct HybridClientRunner: Sendable {
    /// The options of every ceremony this runner drives.
    public let options: HybridClientOptions
    let logger: Logger

    /// A runner with these options, logging to `logger` (silent by default).
    public init(
        options: HybridClientOptions,
        logger: Logger = Logger(label: "hybrid-client", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.options = options
        self.logger = logger
    }

    /// Runs `request` (`navigator.credentials.create()` or `.get()`) with fresh keys and reports
    /// progress to `events`, in order. The tunnel closes right after the shutdown (no linger).
    ///
    /// - Throws: ``HybridClientError`` (``HybridClientError/timedOut(stage:after:)`` once
    ///   ``HybridClientOptions/timeout`` has passed), or `CancellationError` if the task is cancelled.
    public func run(
        _ request: HybridClientRequest,
        events: @escaping @Sendable (HybridClientEvent) -> Void = { _ in }
    ) async throws -> HybridClientResponse {
        try await firstResponse { deliver in
            try await run(request, linger: .zero, events: events, onResponse: deliver)
        }
    }

    /// Runs `request` like ``run(_:events:)``, hands the response to `onResponse` as soon as it is
    /// ready, then keeps the tunnel open for a late update (protocol.md §7.5) until the phone
    /// closes it or ``HybridClientOptions/linger`` runs out, and returns how it ended.
    ///
    /// A late update goes through the session exactly like one before the response; an invalid
    /// late message ends the linger (``HybridSessionEnd/Reason/failed(_:)``) but never the
    /// delivered response. ``HybridClientOptions/timeout`` no longer applies once the response is
    /// ready. Revision 0 has no shutdown, so the tunnel closes at once.
    ///
    /// - Throws: As ``run(_:events:)``, before the response only; `onResponse` is then not called.
    public func run(
        _ request: HybridClientRequest,
        events: @escaping @Sendable (HybridClientEvent) -> Void = { _ in },
        onResponse: @escaping @Sendable (HybridClientResponse) async -> Void
    ) async throws -> HybridSessionEnd {
        try await run(request, linger: options.linger, events: events, onResponse: onResponse)
    }

    /// The one way a ceremony runs: its CTAP2 request, built with the phone's getInfo from the
    /// post-handshake message, carried on the CTAP layer, and the reply mapped to the response JSON.
    private func run(
        _ request: HybridClientRequest,
        linger: Duration,
        events: @escaping @Sendable (HybridClientEvent) -> Void,
        onResponse: @escaping @Sendable (HybridClientResponse) async -> Void
    ) async throws -> HybridSessionEnd {
        try await carryCTAP(
            HybridSessionSetup(requestType: request.requestType, linger: linger), events: events
        ) { postHandshake, logger in
            try Self.ctapRequest(for: request, postHandshake: postHandshake, logger: logger)
        } finish: { reply, postHandshake in
            try Self.mapReply(reply, to: request, authenticatorInfo: Self.authenticatorInfo(postHandshake))
        } deliver: { response in
            await onResponse(response)
        }
    }

    /// Runs `run`, a session that closes right after the shutdown (no linger), and returns the
    /// response it handed to `deliver`: for the calls that return the response. A session returns
    /// normally only after delivering.
    package func firstResponse<Response: Sendable>(
        of run: (_ deliver: @escaping @Sendable (Response) async -> Void) async throws -> HybridSessionEnd
    ) async throws -> Response {
        let delivered = DeliveredResponse<Response>()
        _ = try await run { response in delivered.slot.withLock { $0 = response } }
        guard let response = delivered.slot.withLock({ $0 }) else { throw CancellationError() }
        return response
    }

    /// Runs one session under ``HybridClientOptions/timeout`` that carries one request frame: the
    /// QR code for `setup`'s keys, the advert, the tunnel (or L2CAP channel), the handshake, the
    /// request `makeRequest` builds from the phone's post-handshake message, and `finish` applied
    /// to the phone's reply frame (of the request's type) and that message before
    /// ``HybridClientEvent/done``. Hands the result to `deliver` as soon as it is ready, then
    /// lingers for up to `setup`'s linger after the shutdown (§7.5) and returns how the tunnel
    /// ended. The timeout covers the session up to the response, not the linger.
    ///
    /// Every kind of request (CTAP, JSON) runs on this: it checks nothing about the request's type
    /// beyond what the session does (the reply has the request's type).
    package func bounded<Response: Sendable>(
        _ setup: HybridSessionSetup,
        events: @escaping @Sendable (HybridClientEvent) -> Void,
        makeRequest: @escaping @Sendable (PostHandshakeMessage, Logger) throws -> HybridPayload,
        finish: @escaping @Sendable (HybridPayload, PostHandshakeMessage) throws -> Response,
        deliver: @escaping @Sendable (Response) async -> Void
    ) async throws -> HybridSessionEnd {
        let tracker = CeremonyStageTracker()
        let timeout = options.timeout
        let clock = options.clock
        return try await withThrowingTaskGroup(of: HybridSessionEnd?.self) { group in
            group.addTask {
                let emit: (HybridClientEvent) async -> Void = { event in
                    await tracker.enter(event.stage)
                    events(event)
                }
                return try await runSession(setup, makeRequest: makeRequest, emit: emit) { reply, postHandshake in
                    let response = try finish(reply, postHandshake)
                    await emit(.done)
                    await deliver(response)
                }
            }
            group.addTask {
                do {
                    try await clock.sleep(for: timeout)
                } catch {
                    // Cancelled: before the response the call throws it; after, the linger reports it.
                    if await tracker.stage == .done { return nil }
                    throw error
                }
                // Once the response is out, only the linger's own limit applies.
                if await tracker.stage == .done { return nil }
                throw HybridClientError.timedOut(stage: await tracker.stage, after: timeout)
            }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let end = next { return end }
            }
            throw CancellationError()
        }
    }

    /// The keys behind one QR code: identity key, QR secret, handshake ephemeral key.
    package struct Keys: Sendable {
        package var identityKey: P256.KeyAgreement.PrivateKey
        package var qrSecret: QRSecret
        package var ephemeralKey: P256.KeyAgreement.PrivateKey
    }

    /// New random keys for one QR code.
    package static func freshKeys() -> Keys {
        // BoringSSL's CSPRNG through swift-crypto: no system call per byte.
        func randomBytes(_ count: Int) -> [UInt8] {
            SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
        }
        guard let secret = QRSecret(bytes: randomBytes(QRSecret.byteCount)),
            let identityKey = P256.KeyAgreement.PrivateKey(scalarFrom: randomBytes),
            let ephemeralKey = P256.KeyAgreement.PrivateKey(scalarFrom: randomBytes)
        else { preconditionFailure("the system random generator gives valid secrets and scalars") }
        return Keys(identityKey: identityKey, qrSecret: secret, ephemeralKey: ephemeralKey)
    }

    /// The session from the QR code on: `complete` gets the phone's reply while the tunnel is
    /// still open; then the tunnel lingers (§7.5) or closes. Returns (or throws) once the
    /// session's scanner has stopped as well, so that when a run ends, every socket and thread of
    /// its session is gone: a daemon (the security key) is then at rest.
    private func runSession(
        _ setup: HybridSessionSetup,
        makeRequest: @Sendable (PostHandshakeMessage, Logger) throws -> HybridPayload,
        emit: (HybridClientEvent) async -> Void,
        complete: (HybridPayload, PostHandshakeMessage) async throws -> Void
    ) async throws -> HybridSessionEnd {
        let scanner = options.bluetooth.makeScanner(logger: logger)
        do {
            let end = try await runSession(
                setup, scanner: scanner, makeRequest: makeRequest, emit: emit, complete: complete)
            await scanner.stopScanning()
            return end
        } catch {
            await scanner.stopScanning()
            throw error
        }
    }

    private func runSession(
        _ setup: HybridSessionSetup,
        scanner: any BLEScanner,
        makeRequest: @Sendable (PostHandshakeMessage, Logger) throws -> HybridPayload,
        emit: (HybridClientEvent) async -> Void,
        complete: (HybridPayload, PostHandshakeMessage) async throws -> Void
    ) async throws -> HybridSessionEnd {
        let keys = setup.keys
        let linger = setup.linger
        let observer = setup.observer
        // Said right after the QR code (which stays the first event).
        var l2capReasons: [HybridClientEvent] = []
        let channels = try await offeredChannels { l2capReasons.append($0) }
        var payload = QRCodePayload(
            identityKey: keys.identityKey.publicKey,
            secret: keys.qrSecret,
            timestamp: Int64(Date().timeIntervalSince1970),
            requestType: setup.requestType,
            supportsLinking: false,
            channels: channels
        )
        if setup.deviations.omitsQRTimestamp {
            payload = QRCodePayload(
                identityKey: payload.identityKey, secret: payload.secret, knownDomains: payload.knownDomains,
                timestamp: nil, supportsLinking: payload.supportsLinking, requestTypeHint: payload.requestTypeHint,
                channels: channels)
        }
        let offersL2CAP = channels?.contains(.bleL2CAP) == true
        var session = ClientSession(
            configuration: .init(
                identityKey: keys.identityKey, qrSecret: keys.qrSecret,
                acceptsAdvertSuffix: offersL2CAP || setup.deviations.opensUnofferedAdvertSuffix),
            ephemeralKey: keys.ephemeralKey
        )
        session.followUpRequest = setup.deviations.followUpRequest
        session.emptyUpdatesBeforeRequest = setup.deviations.updatesBeforeRequest
        session.sealsRequestIgnoringSequenceLimit = setup.deviations.sealsRequestIgnoringSequenceLimit
        do {
            let (advertURL, domain, advert) = try await scanForAdvert(
                with: scanner, session: &session, qrURL: payload.url, afterQR: l2capReasons, emit: emit)
            observer.advertMatched(serviceData: advert.serviceData, offeredChannels: channels)
            if let end = try await runOverL2CAPIfChosen(
                clock: options.clock, psm: offersL2CAP ? session.advertSuffix?.psm : nil, offeredL2CAP: offersL2CAP,
                advert: advert, makeRequest: makeRequest, session: &session, observer: observer, emit: emit,
                complete: complete)
            {
                return end
            }
            let url = options.tunnelURL(for: advertURL, domain: domain)
            logger.debug(
                "advert matched", metadata: ["tunnel.domain": "\(domain.rawValue)", "tunnel.host": "\(url.origin)"])
            await emit(.connecting(domain: domain, host: url.origin.authority))
            var configuration = TunnelClient.Configuration()
            configuration.additionalCAFile = options.additionalCAFile
            // NIO's connect and upgrade do not watch task cancellation: keep their own limits
            // within the overall timeout so that it (or Ctrl-C) is not held up by them.
            configuration.connectTimeout = min(configuration.connectTimeout, options.timeout)
            configuration.handshakeTimeout = min(configuration.handshakeTimeout, options.timeout)
            return try await TunnelClient(configuration: configuration, logger: logger).withConnection(to: url) {
                connection in
                await emit(.channel(.tunnel))
                var channel = TunnelMessageChannel(connection)
                let (reply, postHandshake) = try await exchange(
                    makeRequest, session: &session, over: &channel, observer: observer, emit: emit)
                do {
                    try await complete(reply, postHandshake)
                } catch {
                    await connection.close()
                    throw error
                }
                // Revision 0 has no shutdown, so nothing to linger after (§7.5).
                guard postHandshake.revision == .one, linger > .zero else {
                    await connection.close()
                    return HybridSessionEnd(reason: .closedAtOnce)
                }
                await emit(.lingering(limit: linger))
                let end = await lingerForLateUpdates(
                    session: &session, over: connection, messages: &channel.messages, limit: linger, observer: observer)
                logger.debug(
                    "tunnel closed after the response",
                    metadata: ["tunnel.end": "\(end.reason)", "tunnel.lateUpdates": "\(end.lateUpdates)"])
                return end
            }
        } catch let error as HybridClientError {
            throw error
        } catch let error as SessionError {
            throw HybridClientError.session(error)
        } catch let error as TunnelClientError {
            throw HybridClientError.tunnel(error)
        } catch let error as BluetoothError {
            throw HybridClientError.bluetooth(error)
        } catch let error as L2CAPFramingError {
            throw HybridClientError.l2capFraming(error)
        }
    }

    /// Starts scanning, shows the QR code, and feeds every advert to the session until one is
    /// for this QR code. Scanning stops when this returns.
    private func scanForAdvert(
        with scanner: any BLEScanner,
        session: inout ClientSession,
        qrURL: String,
        afterQR: [HybridClientEvent],
        emit: (HybridClientEvent) async -> Void
    ) async throws -> (TunnelURL, TunnelDomainID, BLEAdvertisement) {
        let adverts = try await scanner.scan()
        await emit(.qr(url: qrURL))
        for event in afterQR { await emit(event) }
        await emit(.waitingForDevice(timeout: options.timeout))
        var saidAnotherQRCode = false
        for try await advert in adverts {
            for action in session.advertReceived(serviceData: advert.serviceData) {
                if case .connectTunnel(let url, let domain) = action { return (url, domain, advert) }
            }
            if !saidAnotherQRCode {
                saidAnotherQRCode = true
                await emit(.advertForAnotherQRCode)
            }
        }
        try Task.checkCancellation()
        throw HybridClientError.scanEnded
    }

    /// Runs the session over an open data channel: handshake, the request, the reply, shutdown. Returns
    /// the reply frame and the post-handshake message the request was built from, with the tunnel
    /// still open.
    func exchange(
        _ makeRequest: @Sendable (PostHandshakeMessage, Logger) throws -> HybridPayload,
        session: inout ClientSession,
        over channel: inout some SessionMessageChannel,
        observer: any HybridSessionObserver,
        emit: (HybridClientEvent) async -> Void
    ) async throws -> (reply: HybridPayload, postHandshake: PostHandshakeMessage) {
        var pending = try session.tunnelOpened()
        var handshake: PostHandshakeMessage?
        await emit(.handshake)
        var reply: HybridPayload?
        // Set once the request is queued: "waiting for approval" is announced when it has been
        // sent, not before (a caller that gives up at once must not close before it went out).
        var requestQueued = false
        while true {
            var index = 0
            while index < pending.count {
                switch pending[index] {
                case .send(let bytes) where reply != nil:
                    // Shutdown, after the reply: a phone may hang up as soon as it has answered
                    // (§7.5), and the reply must not be lost to that race.
                    try? await channel.send(bytes)
                case .send(let bytes):
                    try await channel.send(bytes)
                    if requestQueued {
                        requestQueued = false
                        await emit(.waitingForApproval)
                    }
                case .handshakeCompleted(let postHandshake):
                    handshake = postHandshake
                    while let update = try session.nextEmptyUpdate() { try await channel.send(update) }
                    pending += try session.send(try makeRequest(postHandshake, logger))
                    requestQueued = true
                case .deliverResponse(let payload):
                    reply = payload
                case .finish:
                    guard let reply, let handshake else { throw HybridClientError.invalidResponse(.noReply) }
                    return (reply, handshake)
                case .updateReceived, .connectTunnel:
                    break  // updates carry nothing this client uses; connectTunnel only answers an advert
                }
                index += 1
            }
            // A candidate cut is a whole message when it authenticates (§10.9); msg2 is exactly
            // 81 bytes, so a stranger's channel gets one trial.
            let snapshot = session
            guard
                let message = try await channel.next(
                    expecting: .next(handshakeDone: session.handshakeHash != nil),
                    accepting: { snapshot.authenticates($0) })
            else { break }
            if let advert = session.advert { observer.messageReceived(message, advert: advert) }
            pending = try session.messageReceived(message)
        }
        try Task.checkCancellation()
        _ = try session.tunnelClosed()
        throw HybridClientError.session(.tunnelClosedEarly)
    }

    /// The phone's getInfo (post-handshake key 1). A getInfo this client cannot parse counts as
    /// unknown (a phone without extensions is assumed), as it only tunes options.
    private static func authenticatorInfo(_ postHandshake: PostHandshakeMessage) -> AuthenticatorGetInfoResponse? {
        postHandshake.getInfo.flatMap { try? AuthenticatorGetInfoResponse(bytes: $0) }
    }

    /// The request bytes, mapped with the phone's getInfo.
    private static func ctapRequest(
        for request: HybridClientRequest,
        postHandshake: PostHandshakeMessage,
        logger: Logger
    ) throws(HybridClientError) -> [UInt8] {
        let info = authenticatorInfo(postHandshake)
        if info == nil { logger.debug("phone's getInfo not understood; assuming phone defaults") }
        return try request.ctapRequest(authenticatorInfo: info)
    }

    /// A CTAP2 reply as the ceremony's response JSON, or the error its status stands for.
    static func mapReply(
        _ reply: [UInt8], to request: HybridClientRequest, authenticatorInfo: AuthenticatorGetInfoResponse? = nil
    ) throws(HybridClientError) -> HybridClientResponse {
        let decoded: (status: CTAPStatusCode, body: CBORValue?)
        do {
            decoded = try CTAPResponse.decode(reply)
        } catch {
            throw .invalidResponse(.ctap(error))
        }
        guard decoded.status.isSuccess else { throw HybridClientError(status: decoded.status) }
        guard let body = decoded.body else { throw .invalidResponse(.missingResponseMap) }
        return try request.response(to: body, authenticatorInfo: authenticatorInfo)
    }
}

/// The response a lingering run delivered, for the calls that return it.
private final class DeliveredResponse<Response: Sendable>: Sendable {
    let slot = Mutex<Response?>(nil)
}
