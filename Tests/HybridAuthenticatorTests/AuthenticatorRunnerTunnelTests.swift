import Crypto
import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridCTAP
import HybridCore
import HybridTransport
import TestLoopbackRelay
import Testing

/// The runner against a real relay on 127.0.0.1, the simulated air, and `ClientSession` +
/// `TunnelClient` as the client.
@Suite(.timeLimit(.minutes(5)))
struct AuthenticatorRunnerTunnelTests {
    @Test func makeCredentialThenGetAssertionThroughTheTunnel() async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        let store = InMemoryPasskeyStore()
        try await LoopbackRelay.with { relay in
            // Session 1: makeCredential.
            let client = TestClient()
            let events = EventLog()
            let (result, outcome) = try await harness.runSession(
                runner: harness.runner(relay: relay, store: store), client: client,
                request: .ctap(Fixtures.makeCredential().encoded), relay: relay, events: events)
            let summary = try result.get()
            #expect(summary.served)
            #expect(summary.answers == [.init(command: .makeCredential, rpID: "example.com", status: .ok)])
            #expect(
                events.names == [
                    "waitingForTunnel", "tunnelOpened", "advertising", "connected", "advertisingStopped",
                    "handshakeDone", "request", "approved", "done",
                ])
            #expect(events.all.contains(.request(command: .makeCredential, rpID: "example.com")))
            #expect(events.all.first == .waitingForTunnel(origin: relay, domainID: .google))

            // The advert decrypts under the QR secret and names the routing ID the relay gave.
            let advertised = events.all.compactMap { event -> [UInt8]? in
                if case .advertising(0xFFF9, let serviceData) = event { return serviceData }
                return nil
            }
            let routingIDs = events.all.compactMap { event -> RoutingID? in
                if case .tunnelOpened(let routingID) = event { return routingID }
                return nil
            }
            let serviceData = try #require(advertised.first)
            let plaintext = try #require(client.secret.eidKey.trialDecrypt(serviceData))
            #expect(plaintext.routingID == routingIDs.first)
            #expect(plaintext.domainID == .google)
            #expect(harness.advertiser.calls == ["start fff9 20", "stop"])

            // Post-handshake: getInfo of this authenticator and the ctap feature (protocol.md §7.2, §8.3).
            let postHandshake = try #require(outcome.postHandshake)
            #expect(postHandshake.effectiveFeatures == [.ctap])
            let getInfo = try AuthenticatorGetInfoResponse(bytes: try #require(postHandshake.getInfo))
            #expect(getInfo.versions == ["FIDO_2_0", "FIDO_2_1"])
            #expect(getInfo.aaguid == AuthenticatorConfiguration.aaguid)
            #expect(getInfo.transports?.contains("hybrid") == true)

            // The response: a new ES256 passkey for example.com.
            guard case .ctap(let created) = try #require(outcome.response) else {
                Issue.record("not a CTAP response")
                return
            }
            let credential = try MakeCredentialResponse(responseBytes: created)
            #expect(credential.format == "none")
            #expect(credential.authenticatorData.rpIDHash == Array(SHA256.hash(data: Array("example.com".utf8))))
            let attested = try #require(credential.authenticatorData.attestedCredentialData)
            let publicKey = try COSEKey(cbor: attested.credentialPublicKey).publicKey
            #expect(await store.list().map(\.credentialID) == [attested.credentialID])

            // Session 2: getAssertion with an empty allow list finds the discoverable passkey.
            let client2 = TestClient()
            let events2 = EventLog()
            let harness2 = try RunnerHarness()
            defer { harness2.cleanUp() }
            let (result2, outcome2) = try await harness2.runSession(
                runner: harness2.runner(relay: relay, store: store), client: client2,
                request: .ctap(Fixtures.getAssertion().encoded), relay: relay, events: events2)
            #expect(try result2.get().answers == [.init(command: .getAssertion, rpID: "example.com", status: .ok)])
            #expect(events2.all.contains(.approved(status: .ok)))
            guard case .ctap(let asserted) = try #require(outcome2.response) else {
                Issue.record("not a CTAP response")
                return
            }
            let assertion = try GetAssertionResponse(responseBytes: asserted)
            #expect(assertion.credential?.id == attested.credentialID)
            #expect(assertion.authenticatorData.flags.contains(.userPresent))
            #expect(assertion.authenticatorData.signCount == 0)  // a zero counter never increments
            // Verified with the public key from makeCredential (WebAuthn §6.3.3: authData || clientDataHash).
            let signature = try P256.Signing.ECDSASignature(derRepresentation: assertion.signature)
            #expect(
                publicKey.isValidSignature(
                    signature, for: assertion.authenticatorData.encoded + Fixtures.clientDataHash))
            #expect(harness2.advertiser.calls == ["start fff9 20", "stop"])
        }
    }

    @Test func deniedUserPresenceReachesTheClientAsOperationDenied() async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        let store = InMemoryPasskeyStore()
        let user = ScriptedUser(approves: false)
        try await LoopbackRelay.with { relay in
            let events = EventLog()
            let (result, outcome) = try await harness.runSession(
                runner: harness.runner(relay: relay, store: store, user: user), client: TestClient(),
                request: .ctap(Fixtures.makeCredential().encoded), relay: relay, events: events)
            let summary = try result.get()
            #expect(!summary.served)
            // CTAP 2.1 §8.2: CTAP2_ERR_OPERATION_DENIED = 0x27, with no body.
            #expect(outcome.response == .ctap([0x27]))
            #expect(events.all.contains(.denied(status: CTAPStatusCode(rawValue: 0x27))))
            #expect(events.names.last == "done")
            #expect(await store.list().isEmpty)
            #expect(await user.log == ["confirm makeCredential example.com alice"])
        }
    }

    @Test(arguments: [TestClient.Misbehaviour.corruptHandshake, .garbageFrameAfterHandshake])
    func corruptInputFromTheClientEndsCleanly(misbehaviour: TestClient.Misbehaviour) async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        let path = harness.directory.file("passkeys.json")
        let store = try FilePasskeyStore(path: path, protection: .insecurePlaintext)
        try await store.add(Fixtures.passkey(id: Array(repeating: 7, count: 16), user: [1], name: "alice"))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        try await LoopbackRelay.with { relay in
            let events = EventLog()
            let (result, outcome) = try await harness.runSession(
                runner: harness.runner(relay: relay, store: store), client: TestClient(),
                request: .ctap(Fixtures.getAssertion().encoded), relay: relay, misbehaviour: misbehaviour,
                events: events)
            switch misbehaviour {
            case .corruptHandshake:
                #expect(result.failure == .session(.handshake(.authenticationFailed)))
                #expect(outcome.postHandshake == nil)
            case .garbageFrameAfterHandshake:
                #expect(result.failure == .session(.transport(.authenticationFailed)))
                #expect(outcome.postHandshake != nil)
            case .none, .closeAfterRequest:
                Issue.record("not a corruption")
            }
            #expect(outcome.response == nil)
            #expect(outcome.closedByPeer)
            #expect(harness.advertiser.calls == ["start fff9 20", "stop"])
            #expect(events.names.contains("advertisingStopped"))
            #expect(!events.names.contains("request"))
            #expect(events.names.last == "error")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(await store.list().map(\.signCount) == [0])
    }

    /// A browser cancels by closing the tunnel: the prompt is cancelled and the run ends without the
    /// user's answer; this user never answers (protocol.md §7.5, "EOF while processing").
    @Test func clientClosingDuringThePromptEndsTheRun() async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        let user = PromptThatWaits()
        let store = InMemoryPasskeyStore()
        try await LoopbackRelay.with { relay in
            let events = EventLog()
            let (result, outcome) = try await harness.runSession(
                runner: harness.runner(relay: relay, store: store, user: user), client: TestClient(),
                request: .ctap(Fixtures.makeCredential().encoded), relay: relay, misbehaviour: .closeAfterRequest,
                events: events)
            guard case .tunnelClosedEarly(clientConnected: true, _) = result.failure else {
                Issue.record("expected tunnelClosedEarly, got \(result)")
                return
            }
            #expect(outcome.response == nil)
            #expect(events.names.contains("request"))
            #expect(events.names.last == "error")
            #expect(await user.wasCancelled())
            #expect(await store.list().isEmpty)
        }
    }

    /// A runner without a wallet offers only `"ctap"`, so a client's session never sends it JSON
    /// (protocol.md §7.8); the phone's own refusal of unoffered JSON is a session rule
    /// (`SessionFeatureNegotiationTests`).
    @Test func noJSONRequestReachesAPhoneWithoutAWallet() async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        try await LoopbackRelay.with { relay in
            await #expect(throws: SessionError.invalidPostHandshake(.lacksFeature(.digitalCredentials))) {
                _ = try await harness.runSession(
                    runner: harness.runner(relay: relay), client: TestClient(), request: .json(Array("{}".utf8)),
                    relay: relay, events: EventLog())
            }
        }
    }

    @Test func noClientWithinTheWindowStopsAdvertising() async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        try await LoopbackRelay.with { relay in
            var options = harness.options(relay: relay)
            options.clientWaitTimeout = .milliseconds(300)
            let events = EventLog()
            await #expect(throws: AuthenticatorRunnerError.noClientConnected(within: .milliseconds(300))) {
                try await harness.runner(relay: relay, options: options).run(
                    qrCode: TestClient().qrCode(), onEvent: events.callback)
            }
            #expect(harness.advertiser.calls == ["start fff9 20", "stop"])
            #expect(events.names == ["waitingForTunnel", "tunnelOpened", "advertising", "advertisingStopped", "error"])
        }
    }

    @Test func cancellationWhileAdvertisingStopsAdvertising() async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        try await LoopbackRelay.with { relay in
            let (advertising, advertisingStarted) = AsyncStream<Void>.makeStream()
            let events = EventLog { event in
                if case .advertising = event { advertisingStarted.yield() }
            }
            let runner = harness.runner(relay: relay)
            let result = await withTaskGroup(of: AuthenticatorRunnerError?.self) { group in
                group.addTask {
                    do {
                        _ = try await runner.run(qrCode: TestClient().qrCode(), onEvent: events.callback)
                        return nil
                    } catch let error as AuthenticatorRunnerError {
                        return error
                    } catch {
                        return .unexpected(UnexpectedError(error))
                    }
                }
                for await _ in advertising { break }
                group.cancelAll()
                return await group.next() ?? nil
            }
            #expect(result == .cancelled)
            #expect(harness.advertiser.calls == ["start fff9 20", "stop"])
            #expect(events.names.suffix(2) == ["advertisingStopped", "error"])
        }
    }

    @Test func bluetoothFailureIsATypedErrorAndLeavesAdvertisingOff() async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        let advertiser = RecordingAdvertiser(FailingAdvertiser(error: .noAdapter(nil)))
        try await LoopbackRelay.with { relay in
            let events = EventLog()
            let runner = AuthenticatorRunner(
                options: harness.options(relay: relay),
                authenticator: CTAPAuthenticator(
                    store: InMemoryPasskeyStore(), userInteraction: ScriptedUser(), logger: quietLogger),
                advertiser: advertiser, logger: quietLogger)
            await #expect(throws: AuthenticatorRunnerError.bluetooth(.noAdapter(nil))) {
                try await runner.run(qrCode: TestClient().qrCode(), onEvent: events.callback)
            }
            #expect(advertiser.calls == ["start fff9 20", "stop"])
            #expect(events.names == ["waitingForTunnel", "tunnelOpened", "error"])
        }
    }

    @Test func unreachableTunnelServerIsATypedError() async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        // Port 1 on loopback: nothing listens there, so the connection is refused.
        let runner = harness.runner(relay: TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: 1))
        let events = EventLog()
        do {
            _ = try await runner.run(qrCode: TestClient().qrCode(), onEvent: events.callback)
            Issue.record("the run succeeded")
        } catch let error as AuthenticatorRunnerError {
            guard case .tunnel(.unreachable) = error else {
                Issue.record("unexpected \(error)")
                return
            }
        }
        #expect(harness.advertiser.calls.isEmpty)
        #expect(events.names == ["waitingForTunnel", "error"])
    }
}

/// An advertiser whose start always fails, like a machine without an adapter.
struct FailingAdvertiser: BLEAdvertiser {
    let error: BluetoothError

    func startAdvertising(_ advert: BLEServiceDataAdvert) async throws { throw error }

    func stopAdvertising() async {}
}

extension Result {
    /// The error of a failure, else nil.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// A user who never answers a prompt: the prompt ends only when it is cancelled.
actor PromptThatWaits: UserInteraction {
    private var cancelled = false
    private var finished = false
    private var finishWaiters: [CheckedContinuation<Void, Never>] = []

    nonisolated var canVerifyUser: Bool { true }

    func confirm(operation: UserOperation, rpID: String?, userName: String?) async -> Bool {
        // AsyncStream's iteration ends when the task is cancelled, and only then.
        let (parked, keepOpen) = AsyncStream<Never>.makeStream()
        for await _ in parked {}
        keepOpen.finish()
        cancelled = Task.isCancelled
        finished = true
        for waiter in finishWaiters { waiter.resume() }
        finishWaiters = []
        return true
    }

    func chooseAccount(rpID: String, accounts: [AccountChoice]) async -> Int? { 0 }

    func verifyUser() async -> Bool { true }

    /// Whether the prompt was cancelled: waits until the prompt has ended (the cancelled prompt runs
    /// on for a moment; one that is never cancelled never ends, and the suite's time limit fails it).
    func wasCancelled() async -> Bool {
        if !finished { await withCheckedContinuation { finishWaiters.append($0) } }
        return cancelled
    }
}
