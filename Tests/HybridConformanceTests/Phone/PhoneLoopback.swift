import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridConformance
import HybridConformanceLive
import HybridCore
import Logging
import TestFakePhone
import TestLoopbackRelay
import TestSupport

@testable import HybridClient

/// Our hybrid-client against `hybrid-conformance phone`, in-process: a relay on 127.0.0.1 and a
/// simulated air of its own. The phone starts when the client shows its QR code. The client runs
/// as the CLI does: it gets the response at once and lingers after its shutdown (§7.5).
struct PhoneLoopback {
    struct Outcome: Sendable {
        var client: Result<HybridClientResponse, any Error>
        /// How the client's tunnel ended after the response, if it got one.
        var end: HybridSessionEnd?
        var report: ConformanceReport

        var clientError: HybridClientError? {
            guard case .failure(let error) = client else { return nil }
            return error as? HybridClientError
        }
    }

    static let origin = "https://example.com"
    static let rpID = "example.com"

    let relay: TunnelServerOrigin
    let air: SimulatedAir
    let store = InMemoryPasskeyStore()

    static func registration() throws -> HybridClientRequest {
        let options = try PublicKeyCredentialCreationOptionsJSON.quick(
            rpID: rpID, userName: "alice", userID: Array("user-1".utf8), challenge: randomBytes(32))
        return .registration(try RegistrationCeremony(options: options, origin: try WebOrigin(origin)))
    }

    static func authentication() throws -> HybridClientRequest {
        let options = PublicKeyCredentialRequestOptionsJSON.quick(rpID: rpID, challenge: randomBytes(32))
        return .authentication(try AuthenticationCeremony(options: options, origin: try WebOrigin(origin)))
    }

    /// Runs `request` against the phone with `profile` and `fault`. `clock` times the client out
    /// and ends its linger of `clientLinger`; `phoneClock` times the late-update phone's wait.
    func run(
        _ request: HybridClientRequest, profile: PhoneProfile = .strict, fault: PhoneFault? = nil,
        clientTimeout: Duration = .seconds(60), clock: (any Clock<Duration>)? = nil,
        clientLinger: Duration = HybridClientOptions.defaultLinger,
        phoneClientWait: Duration = .seconds(60), phoneClock: (any Clock<Duration>)? = nil,
        onClientEvent: @escaping @Sendable (HybridClientEvent) -> Void = { _ in }
    ) async throws -> Outcome {
        var clientOptions = HybridClientOptions(
            bluetooth: .simulated(air), timeout: clientTimeout, linger: clientLinger,
            tunnelServers: [.google: relay])
        if let clock { clientOptions.clock = clock }
        let client = HybridClientRunner(options: clientOptions)
        var phone = conformancePhone(profile: profile, fault: fault, clientWait: phoneClientWait)
        if let phoneClock { phone.clock = phoneClock }
        let (qrCodes, qrSink) = AsyncStream<String>.makeStream()
        let (responses, responseSink) = AsyncStream<HybridClientResponse>.makeStream()
        async let clientResult = capture {
            try await client.run(request) { event in
                onClientEvent(event)
                if case .qr(let url) = event { qrSink.yield(url) }
            } onResponse: { response in
                responseSink.yield(response)
            }
        }
        var iterator = qrCodes.makeAsyncIterator()
        guard let qr = await iterator.next() else { throw TestFailure("no QR code shown") }
        let report = await phone.run(qrCode: qr)
        qrSink.finish()
        let ended = await clientResult
        responseSink.finish()
        var delivered: HybridClientResponse?
        for await response in responses { delivered = response }
        switch ended {
        case .success(let end):
            guard let delivered else { throw TestFailure("the run ended without delivering a response") }
            return Outcome(client: .success(delivered), end: end, report: report)
        case .failure(let error):
            return Outcome(client: .failure(error), end: nil, report: report)
        }
    }

    /// A relay and a fresh simulated air for the length of `body`.
    static func with<T: Sendable>(_ body: @escaping @Sendable (PhoneLoopback) async throws -> T) async throws -> T {
        try await LoopbackRelay.with { relay in
            try await body(PhoneLoopback(relay: relay, air: try SimulatedAir.fresh("phone-conformance")))
        }
    }
}

extension PhoneLoopback {
    /// What a page on ``origin`` passes to `navigator.credentials.get({digital})`.
    static let digitalCredentialRequest =
        #"{"requests":[{"protocol":"openid4vp-v1-unsigned","data":{"response_type":"vp_token","nonce":"n-1","#
        + #""dcql_query":{"credentials":[{"id":"pid","format":"dc+sd-jwt","claims":[{"path":["given_name"]}]}]}}}]}"#

    /// Our client's digital-credential request against the phone with `profile` and `fault`.
    func runDigitalCredential(
        profile: PhoneProfile = .strict, fault: PhoneFault? = nil
    ) async throws -> (client: Result<DigitalCredential, any Error>, report: ConformanceReport) {
        let client = HybridClientRunner(
            options: HybridClientOptions(
                bluetooth: .simulated(air), timeout: .seconds(60), tunnelServers: [.google: relay]))
        let phone = conformancePhone(profile: profile, fault: fault)
        let request = try DigitalCredentialRequest(json: Array(Self.digitalCredentialRequest.utf8))
        let (qrCodes, qrSink) = AsyncStream<String>.makeStream()
        async let clientResult = capture {
            try await client.requestDigitalCredential(request, origin: try WebOrigin(Self.origin)) { event in
                if case .qr(let url) = event { qrSink.yield(url) }
            }
        }
        var iterator = qrCodes.makeAsyncIterator()
        guard let qr = await iterator.next() else { throw TestFailure("no QR code shown") }
        let report = await phone.run(qrCode: qr)
        qrSink.finish()
        return (await clientResult, report)
    }

    /// The conformance phone on this loopback's air and relay, approving every request.
    private func conformancePhone(
        profile: PhoneProfile, fault: PhoneFault?, clientWait: Duration = .seconds(60)
    ) -> PhoneConformanceRun {
        var phoneOptions = AuthenticatorRunner.Options(ble: .simulated(air))
        phoneOptions.tunnelOrigin = relay
        phoneOptions.clientWaitTimeout = clientWait
        var phone = PhoneConformanceRun(
            runnerOptions: phoneOptions,
            authenticator: CTAPAuthenticator(
                store: store, userInteraction: AutoApproveUserInteraction(userVerification: true)),
            logger: Logger(label: "test-phone", factory: { _ in SwiftLogNoOpLogHandler() }))
        phone.profile = profile
        phone.fault = fault
        return phone
    }
}
