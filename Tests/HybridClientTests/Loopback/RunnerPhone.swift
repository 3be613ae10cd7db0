import HybridAuthenticator
import HybridBluetooth
import HybridCore
import TestFakePhone

extension LoopbackCeremony {
    /// The authenticator role's own driver (`AuthenticatorRunner`) as the phone.
    static func runnerPhone(
        store: any PasskeyStore = InMemoryPasskeyStore(),
        userInteraction: any UserInteraction = AutoApproveUserInteraction(userVerification: true),
        relay: TunnelServerOrigin,
        air: SimulatedAir
    ) -> Phone {
        let runner = AuthenticatorRunner.loopback(
            authenticator: CTAPAuthenticator(store: store, userInteraction: userInteraction), relay: relay, air: air)
        return { qrCode in
            _ = try await runner.run(qrCode: qrCode) { _ in }
            return FakePhone.Record()
        }
    }
}
