import ArgumentParser
import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridCommandLine
import HybridCore
import HybridPresentation
import Logging

/// The default command: serve one hybrid session for a QR code.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve one hybrid session for a FIDO:/ QR code (the default command).",
        discussion: "See 'hybrid-authenticator --help' for the flow, the JSON events and the exit status."
    )

    @OptionGroup var qrSource: QRCodeSourceOptions

    @OptionGroup var tunnel: PhoneTunnelOptions

    @OptionGroup var bluetooth: BluetoothOptions

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "When the QR code offers it (CTAP 2.3), also serve over a BLE L2CAP channel: listen on a PSM and "
                + "advertise it, connectable (--ble hci with extended advertising; else the tunnel only). With "
                + "it, a tunnel server that cannot be reached is not fatal."))
    var l2cap = true

    @Flag(
        help: ArgumentHelp(
            "Auto-approve every request without asking (tests and demos only: anyone who scans-in gets a signature). "
                + "User verification then counts as done when the store is encrypted, since its passphrase opened it.")
    )
    var yes = false

    @Flag(help: "Print every event as one JSON object per line on standard output.")
    var json = false

    @Flag(
        help: ArgumentHelp(
            "Attest new credentials with \"packed\" self attestation (signed by the new key) instead of "
                + "\"none\" as phones do; for tools that need a signature, e.g. fido2-cred -V."))
    var packedAttestation = false

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Seconds allowed to connect to the tunnel server (TCP, then again for the upgrade).")
    var connectTimeout: Double = 10

    @Option(help: "Seconds to advertise waiting for the client.")
    var clientTimeout: Double = 120

    @Option(help: "Seconds for the whole session, 0 for no limit.")
    var timeout: Double = 300

    @Option(help: "Largest difference in seconds between now and the QR code's timestamp, 0 to skip the check.")
    var maxQRAge: Double = 600

    @Flag(
        help:
            "Accept a QR code without a timestamp (key 3), from an old client that omits it. Default: refused as possibly old."
    )
    var acceptQRWithoutTimestamp = false

    @OptionGroup var log: LogOptions

    func validate() throws {
        for (name, value) in [("--connect-timeout", connectTimeout), ("--client-timeout", clientTimeout)]
        where !(value > 0) {
            throw ValidationError("\(name) must be positive")
        }
        guard timeout >= 0, maxQRAge >= 0 else {
            throw ValidationError("--timeout and --max-qr-age must not be negative")
        }
    }

    /// The runner options these flags describe, with `ble` resolved.
    func runnerOptions(ble backend: BLEBackend) -> AuthenticatorRunner.Options {
        var options = AuthenticatorRunner.Options(ble: backend)
        options.domainID = tunnel.domainID
        options.tunnelOrigin = tunnel.tunnelOrigin
        options.caFile = tunnel.caFile
        options.tunnelConnectTimeout = .seconds(connectTimeout)
        options.clientWaitTimeout = .seconds(clientTimeout)
        options.overallTimeout = timeout > 0 ? .seconds(timeout) : nil
        options.maxQRCodeAge = maxQRAge > 0 ? .seconds(maxQRAge) : nil
        options.acceptsQRCodeWithoutTimestamp = acceptQRWithoutTimestamp
        options.offersL2CAP = l2cap
        return options
    }

    /// `--yes`: approve everything; else ask on the terminal, with the store passphrase as user verification.
    func makeUserInteraction(store: FilePasskeyStore) -> any UserInteraction {
        if yes { return AutoApproveUserInteraction(userVerification: store.isEncrypted) }
        var verify: (@Sendable (String) async -> Bool)?
        if store.isEncrypted {
            verify = { passphrase in await store.verifyPassphrase(passphrase) }
        }
        return TerminalUserInteraction(verifyPassphrase: verify)
    }

    /// The CTAP engine serving `store`: getInfo reports `uv: true` only when the user interaction can
    /// verify the user (an encrypted store). Without it, requests that require UV (Chrome's
    /// discoverable sign-ins) are refused.
    func makeAuthenticator(store: FilePasskeyStore, logger: Logger) -> CTAPAuthenticator {
        CTAPAuthenticator(
            store: store, userInteraction: makeUserInteraction(store: store),
            configuration: AuthenticatorConfiguration(attestation: packedAttestation ? .packedSelf : .none),
            logger: logger)
    }

    /// The QR text: decoded from `--qr-image`, else the argument or standard input.
    func readQRCode() async throws -> String {
        try await qrSource.read(prompting: !json)
    }

    func run() async throws {
        log.bootstrapStandardError()
        let logger = Logger(label: "hybrid.authenticator")
        let printer = EventPrinter(json: json)
        let runner: AuthenticatorRunner
        let qrText: String
        let backend = await bluetooth.backend()
        do {
            qrText = try await readQRCode()
            // Check the QR code before asking for a passphrase.
            _ = try AuthenticatorRunner.check(qrCode: qrText, options: runnerOptions(ble: .hci(adapter: nil)))
            let store = try await storeOptions.open()
            let authenticator = makeAuthenticator(store: store, logger: logger)
            var options = runnerOptions(ble: backend)
            // The wallet answers a `dcp` QR code from the same store, asking the user the same way.
            options.digitalCredentials = WalletProvider(source: store, interaction: makeUserInteraction(store: store))
            runner = AuthenticatorRunner(options: options, authenticator: authenticator, logger: logger)
        } catch {
            printer.print(.error(message: "\(error)"))
            throw ExitCode.failure
        }
        let summary: AuthenticatorRunSummary
        do {
            summary = try await cancellingOnInterrupt {
                try await AdapterWatch.failingWhenGone(backend) {
                    try await runner.run(qrCode: qrText, onEvent: printer.print)
                }
            }
        } catch let gone as AdapterGone {
            // The adapter went away (powered off, rfkill, removed): the phone cannot go on.
            printer.print(.error(message: "Bluetooth: \(gone)"))
            throw ExitCode.failure
        } catch {
            // The runner already reported it as its last event.
            throw ExitCode.failure
        }
        if !summary.served { throw ExitCode(3) }
    }
}
