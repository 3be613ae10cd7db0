import Crypto
import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridCore
import HybridTransport
import Logging
import TestFakePhone
import TestLoopbackRelay
import TestManualClock
import TestSupport
import Testing

@testable import HybridClient

/// Full ceremonies: client ↔ relay on 127.0.0.1 ↔ authenticator, over a simulated air.
@Suite struct LoopbackCeremonyTests {
    static let origin = "https://example.com"
    static let rpID = "example.com"
    static let userID: [UInt8] = Array("user-1234".utf8)

    static func registration(challenge: [UInt8] = randomBytes(32)) throws -> HybridClientRequest {
        let options = try PublicKeyCredentialCreationOptionsJSON.quick(
            rpID: rpID, userName: "alice", userID: userID, challenge: challenge)
        return .registration(try RegistrationCeremony(options: options, origin: try WebOrigin(origin)))
    }

    static func authentication(challenge: [UInt8] = randomBytes(32), allow: [[UInt8]] = []) throws
        -> HybridClientRequest
    {
        let options = PublicKeyCredentialRequestOptionsJSON.quick(
            rpID: rpID, challenge: challenge, allowCredentialIDs: allow)
        return .authentication(try AuthenticationCeremony(options: options, origin: try WebOrigin(origin)))
    }

    static func options(
        relay: TunnelServerOrigin, air: SimulatedAir, timeout: Duration = .seconds(20)
    ) -> HybridClientOptions {
        HybridClientOptions(bluetooth: .simulated(air), timeout: timeout, tunnelServers: [.google: relay])
    }

    /// Registers a passkey in `store` with the authenticator role's driver and returns the response.
    static func register(
        store: InMemoryPasskeyStore, relay: TunnelServerOrigin, air: SimulatedAir
    ) async throws -> RegistrationResponseJSON {
        let outcome = try await LoopbackCeremony.run(
            try registration(), options: options(relay: relay, air: air),
            phone: LoopbackCeremony.runnerPhone(store: store, relay: relay, air: air))
        guard case .registration(let response) = try outcome.response() else { throw TestFailure("not a registration") }
        return response
    }

    @Test func createPassesTheAuthenticatorsBytesThrough() async throws {
        let air = try LoopbackCeremony.freshAir()
        let outcome = try await LoopbackRelay.with { relay in
            try await LoopbackCeremony.run(
                try Self.registration(), options: Self.options(relay: relay, air: air),
                authenticator: FakePhone(relay: relay, air: air))
        }
        guard case .registration(let response) = try outcome.response() else {
            Issue.record("not a registration")
            return
        }
        #expect(
            outcome.events.map(\.stage) == [
                .waitingForDevice, .waitingForDevice, .connecting, .connecting, .handshake, .waitingForApproval, .done,
            ])
        #expect(outcome.events.contains(.channel(.tunnel)), "the channel used is reported")
        guard case .qr(let url) = outcome.events.first else {
            Issue.record("first event is not the QR code")
            return
        }
        #expect(try QRCodePayload(url: url).requestType == .makeCredential)
        #expect(response.response.transports == ["hybrid"])
        #expect(response.authenticatorAttachment == "cross-platform")
        // authenticatorData is the phone's authData byte for byte (read from its raw CTAP answer).
        let sent = try #require(try outcome.authenticator?.get().ctapResponse)
        #expect(sent.first == 0x00)
        let authData = try #require(try CBORDecoder.decode(sent.dropFirst())[intKey: 2]?.bytesValue)
        #expect(Base64URL.decode(response.response.authenticatorData) == authData)
    }

    @Test func getWithAllowList() async throws {
        let air = try LoopbackCeremony.freshAir()
        let store = InMemoryPasskeyStore()
        try await LoopbackRelay.with { relay in
            let registration = try await Self.register(store: store, relay: relay, air: air)
            let credentialID = try #require(Base64URL.decode(registration.id))
            let outcome = try await LoopbackCeremony.run(
                try Self.authentication(allow: [credentialID]), options: Self.options(relay: relay, air: air),
                authenticator: FakePhone(store: store, relay: relay, air: air))
            guard case .authentication(let response) = try outcome.response() else {
                Issue.record("not an authentication")
                return
            }
            #expect(response.id == registration.id)
            guard case .qr(let url) = outcome.events.first else {
                Issue.record("first event is not the QR code")
                return
            }
            #expect(try QRCodePayload(url: url).requestType == .getAssertion)
            let sent = try #require(try outcome.authenticator?.get().ctapResponse)
            let authData = try #require(try CBORDecoder.decode(sent.dropFirst())[intKey: 2]?.bytesValue)
            #expect(Base64URL.decode(response.response.authenticatorData) == authData)
        }
    }

    @Test func getDiscoverable() async throws {
        let air = try LoopbackCeremony.freshAir()
        let store = InMemoryPasskeyStore()
        try await LoopbackRelay.with { relay in
            let registration = try await Self.register(store: store, relay: relay, air: air)
            let outcome = try await LoopbackCeremony.run(
                try Self.authentication(), options: Self.options(relay: relay, air: air),
                phone: LoopbackCeremony.runnerPhone(store: store, relay: relay, air: air))
            guard case .authentication(let response) = try outcome.response() else {
                Issue.record("not an authentication")
                return
            }
            #expect(response.id == registration.id)
            #expect(response.response.userHandle.flatMap { Base64URL.decode($0) } == Self.userID)
        }
    }

    @Test func anotherDevicesAdvertIsIgnored() async throws {
        let air = try LoopbackCeremony.freshAir()
        try await LoopbackRelay.with { relay in
            // A phone that scanned some other QR code advertises on the same air all along.
            let otherQR = QRCodePayload(
                identityKey: P256.KeyAgreement.PrivateKey().publicKey,
                secret: try #require(QRSecret(bytes: randomBytes(16))),
                timestamp: 0, requestType: .getAssertion)
            let decoy = FakePhone(relay: relay, air: air)
            let outcome = try await withThrowingTaskGroup(of: LoopbackCeremony.Outcome?.self) { group in
                group.addTask {
                    _ = try? await decoy.serve(qrURL: otherQR.url)
                    return nil
                }
                group.addTask {
                    // The decoy is on the air first: wait until its advert is seen.
                    let scanner = BLEBackend.simulated(air).makeScanner(logger: Logger(label: "decoy-watch"))
                    for try await _ in try await scanner.scan() { break }
                    return try await LoopbackCeremony.run(
                        try Self.registration(), options: Self.options(relay: relay, air: air),
                        phone: LoopbackCeremony.runnerPhone(relay: relay, air: air))
                }
                defer { group.cancelAll() }
                while let next = try await group.next() {
                    if let outcome = next { return outcome }
                }
                throw TestFailure("no outcome")
            }
            guard case .registration = try outcome.response() else {
                Issue.record("not a registration")
                return
            }
        }
    }

    /// No phone at all. The timeout runs on a manual clock, advanced once the client scans for the
    /// advert: it fires at that stage, and the test takes no wall-clock time for it.
    @Test func advertNeverArrives() async throws {
        let air = try LoopbackCeremony.freshAir()
        let clock = ManualClock()
        try await LoopbackRelay.with { relay in
            var options = Self.options(relay: relay, air: air, timeout: .seconds(4))
            options.clock = clock
            let outcome = try await LoopbackCeremony.run(
                try Self.authentication(), options: options, authenticator: nil
            ) {
                event in
                guard case .waitingForDevice = event else { return }
                Task {
                    await clock.sleeperArrived()
                    clock.advance(by: .seconds(4))
                }
            }
            #expect(outcome.clientError == .timedOut(stage: .waitingForDevice, after: .seconds(4)))
            #expect(outcome.clientError?.description.contains("no Bluetooth advert") == true)
        }
    }

    /// The timeout runs on a manual clock, advanced once the client waits for approval: it fires at
    /// that stage however slow the machine is.
    @Test func phoneNeverAnswers() async throws {
        let air = try LoopbackCeremony.freshAir()
        let clock = ManualClock()
        try await LoopbackRelay.with { relay in
            var options = Self.options(relay: relay, air: air, timeout: .seconds(4))
            options.clock = clock
            let outcome = try await LoopbackCeremony.run(
                try Self.registration(), options: options,
                authenticator: FakePhone(relay: relay, air: air, behaviour: .neverAnswers)
            ) { event in
                guard event == .waitingForApproval else { return }
                Task {
                    await clock.sleeperArrived()
                    clock.advance(by: .seconds(4))
                }
            }
            #expect(outcome.clientError == .timedOut(stage: .waitingForApproval, after: .seconds(4)))
            #expect(outcome.events.last == .waitingForApproval)
        }
    }

    /// A phone that answers and hangs up at once: the reply must not be lost to the client's
    /// shutdown failing on a closed tunnel (§7.5).
    @Test(arguments: 1...5) func phoneHangsUpRightAfterItsResponse(run: Int) async throws {
        let air = try LoopbackCeremony.freshAir()
        try await LoopbackRelay.with { relay in
            let outcome = try await LoopbackCeremony.run(
                try Self.registration(), options: Self.options(relay: relay, air: air),
                authenticator: FakePhone(relay: relay, air: air, behaviour: .hangsUpAfterResponse))
            guard case .registration = try outcome.response() else { throw TestFailure("not a registration") }
            #expect(try outcome.authenticator?.get().ctapResponse?.first == 0x00)
        }
    }

    @Test func relayRefusesTheTunnel() async throws {
        let air = try LoopbackCeremony.freshAir()
        try await LoopbackRelay.with { relay in
            let outcome = try await LoopbackCeremony.run(
                try Self.authentication(), options: Self.options(relay: relay, air: air),
                authenticator: FakePhone(relay: relay, air: air, behaviour: .advertiseUnknownTunnel))
            guard case .tunnel = outcome.clientError else {
                Issue.record("expected a tunnel error, got \(outcome.client)")
                return
            }
            #expect(outcome.clientError == .tunnel(.httpStatus(404)))
        }
    }

    @Test func tunnelServerUnreachable() async throws {
        let air = try LoopbackCeremony.freshAir()
        try await LoopbackRelay.with { relay in
            var options = Self.options(relay: relay, air: air)
            options.tunnelServers = [.google: TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: 1)]
            let outcome = try await LoopbackCeremony.run(
                try Self.authentication(), options: options,
                authenticator: FakePhone(relay: relay, air: air))
            guard case .tunnel(.unreachable) = outcome.clientError else {
                Issue.record("expected an unreachable tunnel server, got \(outcome.client)")
                return
            }
        }
    }

    @Test func authenticatorDenies() async throws {
        let air = try LoopbackCeremony.freshAir()
        try await LoopbackRelay.with { relay in
            let outcome = try await LoopbackCeremony.run(
                try Self.registration(), options: Self.options(relay: relay, air: air),
                authenticator: FakePhone(userInteraction: DenyingUserInteraction(), relay: relay, air: air))
            #expect(outcome.clientError == .operationDenied)
            #expect(outcome.clientError?.ctapStatus == .operationDenied)
            // The phone did answer 0x27 (the client did not make it up).
            #expect(try outcome.authenticator?.get().ctapResponse == [0x27])
        }
    }

    @Test func noPasskeyOnThePhone() async throws {
        let air = try LoopbackCeremony.freshAir()
        try await LoopbackRelay.with { relay in
            let outcome = try await LoopbackCeremony.run(
                try Self.authentication(), options: Self.options(relay: relay, air: air),
                authenticator: FakePhone(relay: relay, air: air))
            #expect(outcome.clientError == .noCredentials)
            #expect(try outcome.authenticator?.get().ctapResponse == [0x2E])
        }
    }

    @Test func peerSendsGarbageMidSession() async throws {
        let air = try LoopbackCeremony.freshAir()
        try await LoopbackRelay.with { relay in
            let outcome = try await LoopbackCeremony.run(
                try Self.registration(), options: Self.options(relay: relay, air: air),
                authenticator: FakePhone(relay: relay, air: air, behaviour: .garbageInsteadOfResponse))
            guard case .session(.transport) = outcome.clientError else {
                Issue.record("expected a decryption failure, got \(outcome.client)")
                return
            }
        }
    }
}

/// Declines everything, as a user tapping "cancel" on the phone.
struct DenyingUserInteraction: UserInteraction {
    func confirm(operation: UserOperation, rpID: String?, userName: String?) async -> Bool { false }
    func chooseAccount(rpID: String, accounts: [AccountChoice]) async -> Int? { nil }
    func verifyUser() async -> Bool { false }
    var canVerifyUser: Bool { true }
}
