import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridCore
import Logging
import Synchronization
import TestLoopbackRelay
import TestSupport
import Testing

@testable import HybridClient

/// A digital credential over hybrid end to end (protocol.md §7.8): our client's
/// `requestDigitalCredential` against our phone's `AuthenticatorRunner` with a stub wallet, over
/// the loopback relay and the simulated air.
@Suite struct DigitalCredentialLoopbackTests {
    static let origin = "https://example.com"
    /// Only a hang detector: under the whole suite a two-core machine may take long to schedule
    /// the simulated air (docs/architecture.md, "Tests and the cooperative pool").
    static let hangLimit: Duration = .seconds(150)
    /// What a page passes to navigator.credentials.get({digital}): one OpenID4VP request with DCQL.
    static let pageRequest = Array(
        #"""
        {"requests": [{"protocol": "openid4vp-v1-unsigned", "data": {"response_type": "vp_token",
          "nonce": "n-0S6_WzA2Mj", "dcql_query": {"credentials": [{"id": "pid", "format": "dc+sd-jwt",
          "meta": {"vct_values": ["urn:eudi:pid:1"]}, "claims": [{"path": ["age_equal_or_over", "18"]}]}]}}}]}
        """#.utf8)

    /// A wallet that records what it was asked and answers `outcome`.
    final class StubWallet: DigitalCredentialProvider {
        let outcome: DigitalCredentialOutcome
        private let calls = Mutex<[(String, [DigitalCredentialRequestEntry])]>([])

        init(_ outcome: DigitalCredentialOutcome) { self.outcome = outcome }

        func present(origin: String, entries: [DigitalCredentialRequestEntry]) async -> DigitalCredentialOutcome {
            calls.withLock { $0.append((origin, entries)) }
            return outcome
        }

        var requests: [(origin: String, entries: [DigitalCredentialRequestEntry])] {
            calls.withLock { $0.map { (origin: $0.0, entries: $0.1) } }
        }
    }

    /// What the phone did in one run.
    struct PhoneRun: Sendable {
        var summary: AuthenticatorRunSummary?
        var events: [AuthenticatorEvent]
    }

    /// Runs `client` (given the runner) against a phone with `wallet`; the phone starts when the QR
    /// code is shown. Returns the client's result and, if it got that far, the phone's run.
    static func run<Result: Sendable>(
        wallet: (any DigitalCredentialProvider)?,
        _ client:
            @escaping @Sendable (HybridClientRunner, @escaping @Sendable (HybridClientEvent) -> Void)
            async throws -> Result
    ) async throws -> (client: Swift.Result<Result, any Error>, phone: PhoneRun) {
        let air = try LoopbackCeremony.freshAir()
        return try await LoopbackRelay.with { relay in
            let runner = HybridClientRunner(
                options: HybridClientOptions(
                    bluetooth: .simulated(air), timeout: Self.hangLimit, tunnelServers: [.google: relay]))
            var options = AuthenticatorRunner.Options(ble: .simulated(air))
            options.tunnelOrigin = relay
            options.digitalCredentials = wallet
            options.clientWaitTimeout = Self.hangLimit
            let phone = AuthenticatorRunner(
                options: options,
                authenticator: CTAPAuthenticator(
                    store: InMemoryPasskeyStore(), userInteraction: AutoApproveUserInteraction(userVerification: true)),
                logger: Logger(label: "test-phone", factory: { _ in SwiftLogNoOpLogHandler() }))
            let (qrURLs, qrSink) = AsyncStream<String>.makeStream()
            let events = Mutex<[AuthenticatorEvent]>([])
            async let phoneSummary: AuthenticatorRunSummary? = {
                var iterator = qrURLs.makeAsyncIterator()
                guard let url = await iterator.next() else { return nil }
                return try? await phone.run(qrCode: url) { event in events.withLock { $0.append(event) } }
            }()
            let result = await capture {
                try await client(runner) { event in
                    if case .qr(let url) = event { qrSink.yield(url) }
                }
            }
            qrSink.finish()
            let summary = await phoneSummary
            return (result, PhoneRun(summary: summary, events: events.withLock { $0 }))
        }
    }

    static func request(_ runner: HybridClientRunner, _ events: @escaping @Sendable (HybridClientEvent) -> Void)
        async throws -> DigitalCredential
    {
        try await runner.requestDigitalCredential(
            try DigitalCredentialRequest(json: pageRequest), origin: try WebOrigin(origin), events: events)
    }

    @Test(.timeLimit(.minutes(5)))
    func aPresentationReachesTheClient() async throws {
        let vpToken = Array(#"{"vp_token":{"pid":["eyJhbGciOiJFUzI1NiJ9.e30.c2ln~"]}}"#.utf8)
        let wallet = StubWallet(.credential(protocolID: "openid4vp-v1-unsigned", data: vpToken))
        let (client, phone) = try await Self.run(wallet: wallet, Self.request)
        let credential = try client.get()
        #expect(credential.protocolID == "openid4vp-v1-unsigned")
        #expect(credential.data == vpToken)
        // The wallet saw the page's origin and its one entry, data as compact JSON.
        let asked = try #require(wallet.requests.first)
        #expect(wallet.requests.count == 1)
        #expect(asked.origin == Self.origin)
        #expect(asked.entries.map(\.protocolID) == ["openid4vp-v1-unsigned"])
        #expect(
            String(decoding: try #require(asked.entries.first).data, as: UTF8.self)
                == #"{"dcql_query":{"credentials":[{"claims":[{"path":["age_equal_or_over","18"]}],"format":"dc+sd-jwt","id":"pid","meta":{"vct_values":["urn:eudi:pid:1"]}}]},"nonce":"n-0S6_WzA2Mj","response_type":"vp_token"}"#
        )
        #expect(phone.summary?.digitalCredential == .presented && phone.summary?.served == true)
        #expect(
            phone.events.contains(.digitalCredentialRequest(origin: Self.origin, protocols: ["openid4vp-v1-unsigned"])))
        #expect(phone.events.contains(.digitalCredentialAnswered(.presented)))
    }

    /// Every refusal reaches the client as the same error string, so the verifier cannot tell a
    /// decline from an empty wallet; the phone's own events keep the reason.
    @Test(
        .timeLimit(.minutes(5)),
        arguments: [
            (DigitalCredentialRefusal.declined, DigitalCredentialAnswerKind.declined),
            (.noMatchingCredential, .noMatchingCredential), (.unsupportedProtocol, .unsupportedProtocol),
            (.malformedRequest(reason: "bad DCQL"), .malformedRequest),
        ])
    func everyRefusalLooksTheSame(refusal: DigitalCredentialRefusal, kind: DigitalCredentialAnswerKind) async throws {
        let (client, phone) = try await Self.run(wallet: StubWallet(.refused(refusal)), Self.request)
        #expect(throws: HybridClientError.digitalCredentialRefused("USER_CANCELED")) { try client.get() }
        #expect(phone.summary?.digitalCredential == kind && phone.summary?.served == false)
        #expect(phone.events.contains(.digitalCredentialAnswered(kind)))
    }

    /// Without a wallet a `dcp` QR code gets the features `["ctap"]`: the client sends nothing and
    /// says why, as Chromium's RequestDispatcher does (kIncompatibleDevice).
    @Test(.timeLimit(.minutes(5)))
    func aPhoneWithoutAWalletIsNotAskedAtAll() async throws {
        let (client, phone) = try await Self.run(wallet: nil, Self.request)
        #expect(throws: HybridClientError.digitalCredentialsUnsupported) { try client.get() }
        #expect(!phone.events.contains { if case .digitalCredentialRequest = $0 { true } else { false } })
    }

    /// A request the phone cannot read (here `credential.create`, which it does not serve) gets the
    /// refusal, not a crash and not a hang; the wallet is never asked.
    @Test(.timeLimit(.minutes(5)))
    func anUnreadableEnvelopeIsRefused() async throws {
        let wallet = StubWallet(.credential(protocolID: "p", data: Array("{}".utf8)))
        let envelope = Array(
            #"{"origin":"https://example.com","request":{"digital":{"requests":[{"data":{},"protocol":"p"}]}},"requestType":"credential.create"}"#
                .utf8)
        let (client, phone) = try await Self.run(wallet: wallet) { runner, events in
            try await runner.carryJSON(events: events) { _, _ in
                envelope
            } finish: { reply, _ in
                try HybridClientRunner.digitalCredential(from: reply)
            }
        }
        #expect(throws: HybridClientError.digitalCredentialRefused("USER_CANCELED")) { try client.get() }
        #expect(wallet.requests.isEmpty)
        #expect(phone.summary?.digitalCredential == .malformedRequest)
    }

    /// A wallet does not change passkeys: a `mc` QR code still gets `["ctap"]` and is served.
    @Test(.timeLimit(.minutes(5)))
    func passkeysStillWorkWithAWallet() async throws {
        let wallet = StubWallet(.refused(.declined))
        let (client, phone) = try await Self.run(wallet: wallet) { runner, events in
            try await runner.run(try LoopbackCeremonyTests.registration(), events: events)
        }
        guard case .registration = try client.get() else {
            Issue.record("not a registration")
            return
        }
        #expect(phone.summary?.served == true && phone.summary?.digitalCredential == nil)
        #expect(wallet.requests.isEmpty)
    }
}
