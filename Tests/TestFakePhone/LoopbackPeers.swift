import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridCore
import Logging

extension SimulatedAir {
    /// A simulated air in a fresh temporary directory (owner-only), `<prefix>-<UUID>`.
    package static func fresh(_ prefix: String) throws -> SimulatedAir {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return SimulatedAir(directory: directory.path)
    }
}

extension AuthenticatorRunner {
    /// The authenticator role's own driver as a loopback phone: `authenticator` answers, the
    /// tunnel goes through `relay` (as domain 0), the advert goes out on `air`.
    package static func loopback(
        authenticator: CTAPAuthenticator, relay: TunnelServerOrigin, air: SimulatedAir,
        wallet: (any DigitalCredentialProvider)? = nil
    ) -> AuthenticatorRunner {
        var options = AuthenticatorRunner.Options(ble: .simulated(air))
        options.tunnelOrigin = relay
        options.domainID = 0
        options.digitalCredentials = wallet
        return AuthenticatorRunner(
            options: options, authenticator: authenticator,
            logger: Logger(label: "test-phone", factory: { _ in SwiftLogNoOpLogHandler() }))
    }
}
