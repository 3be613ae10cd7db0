import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridClient
import HybridConformance
import HybridConformanceLive
import HybridCore
import TestFakePhone
import TestLoopbackRelay

/// The client mode on loopback: ``ClientConformanceRun`` against a phone that serves each QR code
/// it shows, through an in-process tunnel relay, on a simulated air of its own.
enum ClientLoopback {
    /// Serves one session for a QR code text, as a phone would.
    typealias Phone = @Sendable (String) async throws -> Void

    /// Runs the client mode; `phone` is started for each QR code as it is shown. With `l2cap`, the
    /// client's adapter can use the BLE L2CAP channel, connecting through it (its QR codes offer it).
    static func run(
        rpID: String = "example.com", digitalCredentials: Bool = false, l2cap: SocketPairL2CAP? = nil,
        phone: @escaping @Sendable (TunnelServerOrigin, SimulatedAir) -> Phone
    )
        async throws -> ConformanceReport
    {
        let air = try freshAir()
        return try await LoopbackRelay.with { relay in
            let serve = phone(relay, air)
            var options = HybridClientOptions(
                bluetooth: .simulated(air), timeout: .seconds(60), tunnelServers: [.google: relay])
            if let l2cap {
                options.l2capOverride = L2CAPClientSupport(
                    capabilities: { BluetoothCapabilities(leConnections: true, extendedAdvertisingReception: true) },
                    connect: { _, psm, _ in try l2cap.connect(psm: psm) })
            }
            let clientOptions = options
            let (urls, sink) = AsyncStream<String>.makeStream()
            return try await withThrowingTaskGroup(of: ConformanceReport?.self) { group in
                group.addTask {
                    await withTaskGroup(of: Void.self) { phones in
                        for await url in urls { phones.addTask { try? await serve(url) } }
                    }
                    return nil
                }
                group.addTask {
                    defer { sink.finish() }
                    // The phone refuses the undated QR code at once; 2 s without a handshake then judges it.
                    var run = ClientConformanceRun(rpID: rpID, clientOptions: clientOptions, refusalWait: .seconds(2))
                    run.includesDigitalCredentials = digitalCredentials
                    return try await run.run { event in
                        if case .qr(let url) = event { sink.yield(url) }
                    }
                }
                defer { group.cancelAll() }
                while let next = try await group.next() {
                    if let report = next { return report }
                }
                throw CancellationError()
            }
        }
    }

    /// The authenticator role's own driver (`AuthenticatorRunner`) with `engine`; with `l2cap`, it
    /// also listens on a PSM there for a QR code that offers the BLE L2CAP channel.
    static func runnerPhone(
        _ engine: CTAPAuthenticator, wallet: (any DigitalCredentialProvider)? = nil, l2cap: SocketPairL2CAP? = nil
    ) -> @Sendable (TunnelServerOrigin, SimulatedAir) -> Phone {
        { relay, air in
            var runner = AuthenticatorRunner.loopback(authenticator: engine, relay: relay, air: air, wallet: wallet)
            if let l2cap { runner.listenL2CAP = { _ in l2cap.listen() } }
            let phone = runner
            return { qrCode in _ = try await phone.run(qrCode: qrCode) { _ in } }
        }
    }

    static func engine(attestation: AuthenticatorConfiguration.Attestation = .none) -> CTAPAuthenticator {
        CTAPAuthenticator(
            store: InMemoryPasskeyStore(), userInteraction: AutoApproveUserInteraction(userVerification: true),
            configuration: AuthenticatorConfiguration(attestation: attestation))
    }

    /// A simulated air in a fresh temporary directory.
    static func freshAir() throws -> SimulatedAir { try SimulatedAir.fresh("client-conformance") }
}
