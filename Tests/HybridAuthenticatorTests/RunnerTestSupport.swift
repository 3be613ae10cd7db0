import Crypto
import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridCore
import HybridTransport
import Logging
import Synchronization
import TestSupport

/// A logger that drops everything (no bootstrap in tests).
let quietLogger = Logger(label: "hybrid-authenticator-tests", factory: { _ in SwiftLogNoOpLogHandler() })

/// Every event of a run, in order.
final class EventLog: Sendable {
    private let events = Mutex<[AuthenticatorEvent]>([])
    /// Sees every event as it happens (e.g. to act once advertising starts).
    private let observer: (@Sendable (AuthenticatorEvent) -> Void)?

    init(observer: (@Sendable (AuthenticatorEvent) -> Void)? = nil) { self.observer = observer }

    var callback: @Sendable (AuthenticatorEvent) -> Void {
        { event in
            self.events.withLock { $0.append(event) }
            self.observer?(event)
        }
    }

    var all: [AuthenticatorEvent] { events.withLock { $0 } }

    /// The events with their payloads dropped, for order checks.
    var names: [String] {
        all.map { event in
            switch event {
            case .waitingForTunnel: "waitingForTunnel"
            case .tunnelOpened: "tunnelOpened"
            case .tunnelUnavailable: "tunnelUnavailable"
            case .listeningL2CAP: "listeningL2CAP"
            case .advertising: "advertising"
            case .advertisingStopped: "advertisingStopped"
            case .connected(let channel): channel == .tunnel ? "connected" : "connected over L2CAP"
            case .handshakeDone: "handshakeDone"
            case .request: "request"
            case .approved: "approved"
            case .denied: "denied"
            case .digitalCredentialRequest: "digitalCredentialRequest"
            case .digitalCredentialAnswered: "digitalCredentialAnswered"
            case .done: "done"
            case .error: "error"
            }
        }
    }
}

/// Wraps an advertiser and records every start and stop, to prove advertising ends up off.
final class RecordingAdvertiser: BLEAdvertiser {
    private let inner: any BLEAdvertiser
    private let log = Mutex<[String]>([])

    init(_ inner: any BLEAdvertiser) { self.inner = inner }

    func startAdvertising(_ advert: BLEServiceDataAdvert) async throws {
        let connectable = advert.connectable ? " connectable" : ""
        log.withLock {
            $0.append("start \(String(advert.uuid16, radix: 16)) \(advert.serviceData.count)\(connectable)")
        }
        try await inner.startAdvertising(advert)
    }

    func stopAdvertising() async {
        await inner.stopAdvertising()
        log.withLock { $0.append("stop") }
    }

    var calls: [String] { log.withLock { $0 } }
}

/// The desktop side for the tests: shows a QR code and runs `ClientSession` over the simulated
/// air and a real `TunnelClient`, as an independent peer of the runner.
struct TestClient: Sendable {
    /// What the client may do wrong on purpose.
    enum Misbehaviour: Sendable {
        case none
        /// Flip one bit of the Noise message (its last byte, inside the tag).
        case corruptHandshake
        /// After the handshake, send 48 bytes that are not a ciphertext under the session keys.
        case garbageFrameAfterHandshake
        /// Send the request, then close the tunnel without waiting (a browser cancelling).
        case closeAfterRequest
    }

    /// What the client saw.
    struct Outcome: Sendable {
        var postHandshake: PostHandshakeMessage?
        var response: HybridPayload?
        /// The tunnel ended because the authenticator side closed it, not after our shutdown.
        var closedByPeer = false
    }

    let identityKey = P256.KeyAgreement.PrivateKey()
    let secret: QRSecret
    /// The CTAP 2.3 channels the QR code offers (key 6), if any.
    let channels: [DataTransferChannel]?

    init(channels: [DataTransferChannel]? = nil) {
        self.channels = channels
        var generator = SystemRandomNumberGenerator()
        secret = QRSecret(bytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })!
    }

    /// The QR text, as a current client writes it (key 2 = 2, key 4 present).
    func qrCode(timestamp: Int64 = Int64(Date().timeIntervalSince1970), knownDomains: Int64? = 2) -> String {
        QRCodePayload(
            identityKey: identityKey.publicKey, secret: secret, knownDomains: knownDomains, timestamp: timestamp,
            supportsLinking: false, requestTypeHint: "mc", channels: channels
        ).url
    }

    /// Waits for our advert on `adverts`, connects through the relay at `relay`, and runs the session.
    func run(
        request: HybridPayload?, adverts: AsyncThrowingStream<BLEAdvertisement, any Error>,
        relay: TunnelServerOrigin, misbehaviour: Misbehaviour = .none
    ) async throws -> Outcome {
        // A client that offers L2CAP reads the advert's suffix (a 24-byte advert).
        let configuration = ClientSession.Configuration(
            identityKey: identityKey, qrSecret: secret, acceptsAdvertSuffix: channels?.contains(.bleL2CAP) == true)
        var session = ClientSession(configuration: configuration, ephemeralKey: P256.KeyAgreement.PrivateKey())
        if let request { _ = try session.send(request) }
        var connectURL: TunnelURL?
        for try await advert in adverts {
            for case .connectTunnel(let url, _) in session.advertReceived(serviceData: advert.serviceData) {
                connectURL = url
            }
            if connectURL != nil { break }
        }
        guard let connectURL else { throw TestFailure("the scan ended without our advert") }
        let target = TunnelURL(origin: relay, path: connectURL.path)
        return try await TunnelClient(logger: quietLogger).withConnection(to: target) { connection in
            var outcome = Outcome()
            for case .send(var message1) in try session.tunnelOpened() {
                if case .corruptHandshake = misbehaviour { message1[message1.count - 1] ^= 0x01 }
                try await connection.send(message1)
            }
            do {
                for try await message in connection.messages {
                    for action in try session.messageReceived(message) {
                        switch action {
                        case .send(let bytes):
                            try await connection.send(bytes)
                        case .handshakeCompleted(let postHandshake):
                            outcome.postHandshake = postHandshake
                            if case .garbageFrameAfterHandshake = misbehaviour {
                                try await connection.send([UInt8](repeating: 0x5A, count: 48))
                            }
                        case .deliverResponse(let response):
                            outcome.response = response
                        case .updateReceived:
                            break
                        case .finish:
                            await connection.close()
                            return outcome
                        case .connectTunnel:
                            break
                        }
                    }
                    if case .closeAfterRequest = misbehaviour, outcome.postHandshake != nil {
                        await connection.close()
                        return outcome
                    }
                }
            } catch let error as TunnelClientError where error == .connectionClosed {
                // The peer dropped the connection: same as a close.
            }
            outcome.closedByPeer = true
            return outcome
        }
    }
}

/// One runner wired for a loopback test: a relay origin, a fresh simulated air and a recording advertiser.
struct RunnerHarness {
    let directory: TemporaryDirectory
    let air: SimulatedAir
    let advertiser: RecordingAdvertiser

    init() throws {
        directory = try TemporaryDirectory()
        air = SimulatedAir(directory: directory.file("air"))
        advertiser = RecordingAdvertiser(SimulatedAirAdvertiser(air: air, logger: quietLogger))
    }

    func options(relay: TunnelServerOrigin?) -> AuthenticatorRunner.Options {
        var options = AuthenticatorRunner.Options(ble: .simulated(air))
        options.tunnelOrigin = relay
        options.tunnelConnectTimeout = .seconds(5)
        options.clientWaitTimeout = .seconds(20)
        options.overallTimeout = .seconds(40)
        return options
    }

    func runner(
        relay: TunnelServerOrigin?, store: any PasskeyStore = InMemoryPasskeyStore(),
        user: any UserInteraction = ScriptedUser(), options: AuthenticatorRunner.Options? = nil,
        logger: Logger = quietLogger
    ) -> AuthenticatorRunner {
        AuthenticatorRunner(
            options: options ?? self.options(relay: relay),
            authenticator: CTAPAuthenticator(store: store, userInteraction: user, logger: quietLogger),
            advertiser: advertiser, logger: logger)
    }

    /// Starts scanning the air (so no advert is missed), then runs the runner and the client together.
    func runSession(
        runner: AuthenticatorRunner, client: TestClient, request: HybridPayload?, relay: TunnelServerOrigin,
        misbehaviour: TestClient.Misbehaviour = .none, events: EventLog
    ) async throws -> (Result<AuthenticatorRunSummary, AuthenticatorRunnerError>, TestClient.Outcome) {
        let adverts = try await SimulatedAirScanner(air: air, logger: quietLogger).scan()
        async let clientOutcome = client.run(
            request: request, adverts: adverts, relay: relay, misbehaviour: misbehaviour)
        let result: Result<AuthenticatorRunSummary, AuthenticatorRunnerError>
        do {
            result = .success(try await runner.run(qrCode: client.qrCode(), onEvent: events.callback))
        } catch let error as AuthenticatorRunnerError {
            result = .failure(error)
        }
        return (result, try await clientOutcome)
    }

    func cleanUp() { directory.cleanUp() }
}
