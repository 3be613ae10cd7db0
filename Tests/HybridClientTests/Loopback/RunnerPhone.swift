import HybridAuthenticator
import HybridBluetooth
import HybridCore
import Logging

extension LoopbackCeremony {
    /// The authenticator role's own driver (`AuthenticatorRunner`) as the phone.
    static func runnerPhone(
        store: any PasskeyStore = InMemoryPasskeyStore(),
        userInteraction: any UserInteraction = AutoApproveUserInteraction(userVerification: true),
        relay: TunnelServerOrigin,
        air: SimulatedAir
    ) -> Phone {
        var options = AuthenticatorRunner.Options(ble: .simulated(air))
        options.tunnelOrigin = relay
        options.domainID = 0
        let runner = AuthenticatorRunner(
            options: options,
            authenticator: CTAPAuthenticator(store: store, userInteraction: userInteraction),
            logger: Logger(label: "test-phone", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        return { qrCode in
            _ = try await runner.run(qrCode: qrCode) { _ in }
            return TestAuthenticator.Record()
        }
    }
}
