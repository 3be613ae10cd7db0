import Crypto
import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridCore
import HybridTransport
import Logging
import Synchronization
import TestLoopbackRelay
import TestManualClock
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The runner as a CTAP 2.3 phone (protocol.md §3.4, §10.9): a QR code offering the BLE L2CAP
/// channel gets a connectable advert with the suffix `{1: PSM}`, and the session is served on
/// whichever channel the client speaks on first. The L2CAP channel is an `AF_UNIX` socket pair
/// (it keeps write boundaries as SDUs do); the kernel's channel is proven in the blevm guest.
/// The client is `ClientSession` driven here, an independent peer of the runner.
@Suite(.timeLimit(.minutes(5)))
struct AuthenticatorRunnerL2CAPTests {
    @Test func noRelayReachableTheSessionRunsOverL2CAP() async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        let source = try SocketPairSource(psm: 0x0083)
        let events = EventLog()
        let (summary, response, psm) = try await Self.sessionWithoutRelay(
            harness: harness, source: source, events: events)

        #expect(summary.answers == [.init(command: .makeCredential, rpID: "example.com", status: .ok)])
        #expect(psm == 0x0083)
        #expect(response.first == 0x00)
        #expect(events.all.contains(.listeningL2CAP(psm: 0x0083)))
        #expect(events.all.contains { if case .tunnelUnavailable = $0 { true } else { false } })
        #expect(events.all.contains(.connected(channel: .l2cap)))
        // 20 encrypted bytes, then `a1 01 18 83` = {1: 131} (canonical CBOR), connectable.
        let advertised = try #require(events.advertisedServiceData.first)
        #expect(Array(advertised.suffix(4)) == [0xA1, 0x01, 0x18, 0x83])
        #expect(harness.advertiser.calls == ["start fff9 24 connectable", "stop"])
    }

    /// Anyone nearby can open a channel to the advertised PSM: one that stays silent and one that
    /// sends garbage (with CRLFs, so that the deframer offers it) and closes, both before the
    /// client, neither take the session nor keep the client out.
    @Test func intrudersOnThePSMNeitherTakeTheSessionNorKeepTheClientOut() async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        let source = try SocketPairSource(psm: 0x0085)
        let silent = try source.connect()
        let noisy = try source.connect()
        try noisy.write(Array("GET / HTTP/1.1\r\n\r\n".utf8) + [UInt8](repeating: 0x41, count: 81) + [0x0D, 0x0A])
        noisy.shutDown()
        let events = EventLog()
        let (summary, response, _) = try await Self.sessionWithoutRelay(
            harness: harness, source: source, events: events)
        #expect(summary.served)
        #expect(response.first == 0x00)
        #expect(events.all.filter { $0 == .connected(channel: .l2cap) }.count == 1)
        withExtendedLifetime(silent) {}
    }

    /// Channels that stay silent fill every place the phone serves at once; the client's channel
    /// opens after them. Once the first-message deadline passes on the test clock, the silent ones
    /// are dropped and the client is served. Without the deadline the client waits for ever (the
    /// suite's time limit fails the test).
    @Test func silentChannelsAreDroppedAtTheFirstMessageDeadline() async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        let source = try SocketPairSource(psm: 0x0086)
        let silent = try (0..<4).map { _ in try source.connect() }
        let clock = ManualClock()
        let events = EventLog()
        async let session = Self.sessionWithoutRelay(harness: harness, source: source, events: events, clock: clock)
        await clock.sleeperArrived(count: 4)
        #expect(!events.all.contains(.connected(channel: .l2cap)))
        clock.advance(by: .seconds(5))
        let (summary, response, _) = try await session
        #expect(summary.served)
        #expect(response.first == 0x00)
        #expect(events.all.filter { $0 == .connected(channel: .l2cap) }.count == 1)
        withExtendedLifetime(silent) {}
    }

    /// A stranger's flood before any authentication, on every place the phone serves at once: a
    /// valid P-256 point (what msg1 starts with), then CRLF pairs, with each channel kept open.
    /// Unbounded, every CRLF is a trial decryption of everything before it (quadratic work on the
    /// cooperative pool, and the channel stays). msg1 is exactly 81 bytes, so each stranger costs
    /// one trial and its channel is dropped once 83 bytes are in: the four drops (counted in the
    /// run's log, with the typed error) free the places, and the client is served, while the
    /// first-message deadline's clock never moves.
    @Test func aCRLFFloodBeforeTheHandshakeGetsTheChannelDropped() async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        let source = try SocketPairSource(psm: 0x0087)
        let point = P256.KeyAgreement.PrivateKey().publicKey.x963Representation
        let flood = Array(point) + Array(repeating: [UInt8]([0x0D, 0x0A]), count: 1000).joined()
        let strangers = try (0..<4).map { _ in try source.connect() }
        for stranger in strangers {
            for offset in stride(from: 0, to: flood.count, by: 64) {
                try stranger.write(Array(flood[offset..<min(offset + 64, flood.count)]))
            }
        }
        let clock = ManualClock()
        let log = LogRecorder()
        let events = EventLog()
        let (summary, response, _) = try await Self.sessionWithoutRelay(
            harness: harness, source: source, events: events, clock: clock, logger: log.logger)
        #expect(summary.served)
        #expect(response.first == 0x00)
        let drops = log.messages.filter { $0.message == "a channel failed before the client's first message" }
        #expect(drops.count == 4)
        #expect(drops.allSatisfy { $0.error == "\(L2CAPFramingError.expectedMessageNotFound(length: 81))" })
        for stranger in strangers {
            // Shut by the phone: what is left to read ends in end-of-file, or in ECONNRESET when
            // the phone closed with part of the flood still unread in its queue (the kernel
            // resets the peer of a socket closed with unread data; which one depends on timing).
            try Self.readUntilShut(stranger)
        }
    }

    /// A phone whose advert takes long to stop (bluetoothd answers UnregisterAdvertisement only
    /// after up to its D-Bus timeout on a busy machine) still answers the handshake at once: the
    /// client's L2CAP channel gives the first message a deadline (--l2cap-timeout). Here the stop
    /// returns only once the client has read msg2; a phone that stops the advert before it
    /// answers waits until its own time limit (40 s here: "gave up after 40 s").
    @Test(.timeLimit(.minutes(1))) func theHandshakeIsAnsweredWhileTheAdvertIsStillStopping() async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        let source = try SocketPairSource(psm: 0x0088)
        let handshakeRead = AsyncStream<Void>.makeStream()
        let advertiser = StopAwaitingAdvertiser(
            SimulatedAirAdvertiser(air: harness.air, logger: quietLogger), until: handshakeRead.stream)
        var runner = AuthenticatorRunner(
            options: harness.options(relay: try TunnelServerOrigin(parsing: "ws://127.0.0.1:1")),
            authenticator: CTAPAuthenticator(
                store: InMemoryPasskeyStore(), userInteraction: ScriptedUser(), logger: quietLogger),
            advertiser: advertiser, logger: quietLogger)
        runner.listenL2CAP = { _ in source }
        let client = TestClient(channels: [.cloudTunnel, .bleL2CAP])
        let adverts = try await SimulatedAirScanner(air: harness.air, logger: quietLogger).scan()
        async let outcome = client.runOverL2CAP(
            request: .ctap(Fixtures.makeCredential().encoded), adverts: adverts, source: source,
            handshakeDone: { handshakeRead.continuation.finish() })
        let summary = try await runner.run(qrCode: client.qrCode(), onEvent: { _ in })
        let (response, _) = try await outcome
        #expect(summary.served)
        #expect(response.first == 0x00)
        #expect(advertiser.stopsBegun == 1)
    }

    private static func readUntilShut(_ channel: L2CAPChannel) throws {
        do {
            while let sdu = try channel.read(timeoutMilliseconds: -1), !sdu.isEmpty {}
        } catch .systemCallFailed(_, let errno) where errno == ECONNRESET {
            return
        }
    }

    /// A makeCredential over `source`'s channels with no relay reachable (nothing listens on port
    /// 1): the runner (its timers on `clock`, if given) and a ``TestClient`` that offers L2CAP, run
    /// together.
    private static func sessionWithoutRelay(
        harness: RunnerHarness, source: SocketPairSource, events: EventLog, clock: ManualClock? = nil,
        logger: Logger = quietLogger
    ) async throws -> (AuthenticatorRunSummary, response: [UInt8], psm: UInt16) {
        var runner = harness.runner(relay: try TunnelServerOrigin(parsing: "ws://127.0.0.1:1"), logger: logger)
        if let clock { runner.clock = clock }
        runner.listenL2CAP = { _ in source }
        let client = TestClient(channels: [.cloudTunnel, .bleL2CAP])
        let adverts = try await SimulatedAirScanner(air: harness.air, logger: quietLogger).scan()
        async let outcome = client.runOverL2CAP(
            request: .ctap(Fixtures.makeCredential().encoded), adverts: adverts, source: source)
        let summary = try await runner.run(qrCode: client.qrCode(), onEvent: events.callback)
        let (response, psm) = try await outcome
        return (summary, response, psm)
    }

    @Test func aClientOnTheTunnelIsServedThereWhileTheListenerWaits() async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        let source = try SocketPairSource(psm: 0x0090)
        try await LoopbackRelay.with { relay in
            var runner = harness.runner(relay: relay)
            runner.listenL2CAP = { _ in source }
            let client = TestClient(channels: [.cloudTunnel, .bleL2CAP])
            let events = EventLog()
            let (result, outcome) = try await harness.runSession(
                runner: runner, client: client, request: .ctap(Fixtures.makeCredential().encoded), relay: relay,
                events: events)
            #expect(try result.get().served)
            #expect(outcome.response != nil)
            #expect(events.all.contains(.connected(channel: .tunnel)))
            #expect(!events.all.contains(.connected(channel: .l2cap)))
            let advertised = try #require(events.advertisedServiceData.first)
            #expect(Array(advertised.suffix(4)) == [0xA1, 0x01, 0x18, 0x90])
            #expect(harness.advertiser.calls == ["start fff9 24 connectable", "stop"])
        }
    }

    @Test(arguments: [false, true])
    func noListenerUnlessTheQRCodeAsksAndTheOptionAllows(qrAsks: Bool) async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        let listens = Mutex(0)
        try await LoopbackRelay.with { relay in
            var options = harness.options(relay: relay)
            // Asked for but switched off, or allowed but not asked for: no PSM either way.
            options.offersL2CAP = !qrAsks
            var runner = harness.runner(relay: relay, options: options)
            let source = try SocketPairSource(psm: 0x0091)
            runner.listenL2CAP = { _ in
                listens.withLock { $0 += 1 }
                return source
            }
            let client = TestClient(channels: qrAsks ? [.cloudTunnel, .bleL2CAP] : nil)
            let events = EventLog()
            let (result, _) = try await harness.runSession(
                runner: runner, client: client, request: .ctap(Fixtures.makeCredential().encoded), relay: relay,
                events: events)
            #expect(try result.get().served)
            #expect(listens.withLock { $0 } == 0)
            #expect(harness.advertiser.calls == ["start fff9 20", "stop"])
        }
    }

    @Test func aListenerThatFailsLeavesTheTunnel() async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        try await LoopbackRelay.with { relay in
            var runner = harness.runner(relay: relay)
            runner.listenL2CAP = { _ in throw BluetoothError.unavailable(reason: "no extended advertising") }
            let client = TestClient(channels: [.cloudTunnel, .bleL2CAP])
            let events = EventLog()
            let (result, _) = try await harness.runSession(
                runner: runner, client: client, request: .ctap(Fixtures.makeCredential().encoded), relay: relay,
                events: events)
            #expect(try result.get().served)
            #expect(events.all.contains(.connected(channel: .tunnel)))
            #expect(harness.advertiser.calls == ["start fff9 20", "stop"])
        }
    }
}

/// Records what a run logs (message and `error` metadata), at every level.
final class LogRecorder: Sendable {
    struct Entry: Sendable {
        var message: String
        var error: String?
    }

    private let entries = Mutex<[Entry]>([])

    var messages: [Entry] { entries.withLock { $0 } }

    var logger: Logger {
        var logger = Logger(label: "recorded") { _ in Handler(recorder: self) }
        logger.logLevel = .trace
        return logger
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let entry = Entry(message: "\(event.message)", error: event.metadata?["error"].map { "\($0)" })
            recorder.entries.withLock { $0.append(entry) }
        }
    }
}

/// An L2CAP "listener" over `AF_UNIX` socket pairs: ``connect()`` is the client opening the channel.
final class SocketPairSource: L2CAPChannelSource {
    let psm: UInt16
    private let opened: AsyncStream<L2CAPChannel>
    private let open: AsyncStream<L2CAPChannel>.Continuation

    init(psm: UInt16) throws {
        self.psm = psm
        (opened, open) = AsyncStream<L2CAPChannel>.makeStream()
    }

    /// The client's end of a new channel; the phone's end goes to ``nextChannel()``.
    func connect(sendMTU: Int = 64) throws -> L2CAPChannel {
        var descriptors: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &descriptors) == 0 else {
            throw TestFailure("socketpair: errno \(errno)")
        }
        open.yield(L2CAPChannel.adopting(descriptor: descriptors[1], sendMTU: sendMTU))
        return L2CAPChannel.adopting(descriptor: descriptors[0], sendMTU: sendMTU)
    }

    func nextChannel() async throws -> L2CAPChannel {
        // One waiter at a time: the runner has one accept task.
        var next = opened.makeAsyncIterator()
        guard let channel = await next.next() else { throw CancellationError() }
        return channel
    }
}

/// An advertiser whose stop returns only once `release` ends (a slow bluetoothd), counting the
/// stops begun.
final class StopAwaitingAdvertiser: BLEAdvertiser {
    private let inner: any BLEAdvertiser
    private let release: AsyncStream<Void>
    private let begun = Mutex(0)

    init(_ inner: any BLEAdvertiser, until release: AsyncStream<Void>) {
        self.inner = inner
        self.release = release
    }

    func startAdvertising(_ advert: BLEServiceDataAdvert) async throws { try await inner.startAdvertising(advert) }

    func stopAdvertising() async {
        let first = begun.withLock { count in
            count += 1
            return count == 1
        }
        // Only the first stop waits (the run's cleanup stops again).
        if first { for await _ in release {} }
        await inner.stopAdvertising()
    }

    var stopsBegun: Int { begun.withLock { $0 } }
}

extension EventLog {
    /// The service data of every advert the run put on the air.
    var advertisedServiceData: [[UInt8]] {
        all.compactMap { event in
            if case .advertising(_, let serviceData) = event { return serviceData }
            return nil
        }
    }
}

extension TestClient {
    /// Waits for our advert, takes the PSM from its suffix, opens the channel through `source`
    /// and runs the session over it (CRLF framing, §10.9). Returns the CTAP response and the PSM.
    /// `handshakeDone` is called once msg2 has been read.
    func runOverL2CAP(
        request: HybridPayload, adverts: AsyncThrowingStream<BLEAdvertisement, any Error>, source: SocketPairSource,
        handshakeDone: @Sendable () -> Void = {}
    ) async throws -> (response: [UInt8], psm: UInt16) {
        var session = ClientSession(
            configuration: .init(identityKey: identityKey, qrSecret: secret, acceptsAdvertSuffix: true),
            ephemeralKey: P256.KeyAgreement.PrivateKey())
        _ = try session.send(request)
        for try await advert in adverts where !session.advertReceived(serviceData: advert.serviceData).isEmpty {
            break
        }
        guard let psm = session.advertSuffix?.psm else { throw TestFailure("no PSM in the advert") }
        #expect(psm == source.psm)
        var stream = try L2CAPMessageStream(channel: try source.connect())
        defer { stream.close() }
        for case .send(let message1) in try session.tunnelOpened() { try await stream.send(message1) }
        var response: [UInt8]?
        while !session.isFinished {
            let snapshot = session
            guard
                let message = try await stream.receive(
                    expecting: .next(handshakeDone: session.handshakeHash != nil),
                    accepting: { candidate in
                        var trial = snapshot
                        return (try? trial.messageReceived(candidate)) != nil
                    })
            else { throw TestFailure("the phone closed the channel early") }
            let handshaking = session.handshakeHash == nil
            defer { if handshaking, session.handshakeHash != nil { handshakeDone() } }
            for action in try session.messageReceived(message) {
                switch action {
                case .send(let bytes): try await stream.send(bytes)
                case .deliverResponse(.ctap(let bytes)): response = bytes
                default: break
                }
            }
        }
        guard let response else { throw TestFailure("no response") }
        return (response, psm)
    }
}
