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

    @Argument(help: "The FIDO:/ text of the QR code; '-' or nothing reads it from standard input.")
    var qrCode: String?

    @Option(
        help: ArgumentHelp(
            "Read the QR code from this PNG or JPEG image (e.g. a screenshot of the browser's QR code) "
                + "instead of the FIDO:/ text argument or standard input.",
            valueName: "file"))
    var qrImage: String?

    @Option(
        help: ArgumentHelp(
            "Connect to this relay (ws:// or wss://host[:port]) instead of the domain's tunnel server; "
                + "the advert still names --domain-id.",
            valueName: "url"))
    var tunnelURL: String?

    @Option(
        help: ArgumentHelp(
            "Tunnel domain to use and advertise: 0 (Google), 1 (Apple, only if the client knows it), "
                + "or a hashed ID 256-65535.")
    )
    var domainID: UInt16 = 0

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

    @Option(
        help: ArgumentHelp("PEM file of extra CA certificates trusted for wss:// (private relays).", valueName: "file"))
    var caFile: String?

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
        if qrImage != nil, qrCode != nil {
            throw ValidationError("give the QR code either as --qr-image or as the FIDO:/ text argument, not both")
        }
        if let tunnelURL {
            do {
                _ = try TunnelServerOrigin(parsing: tunnelURL)
            } catch {
                throw ValidationError("--tunnel-url must be ws:// or wss:// with a host and optional port (\(error))")
            }
        }
        guard TunnelDomainID(rawValue: domainID) != nil else {
            throw ValidationError("--domain-id \(domainID) is reserved: use 0, 1 or 256-65535")
        }
        for (name, value) in [("--connect-timeout", connectTimeout), ("--client-timeout", clientTimeout)]
        where !(value > 0) {
            throw ValidationError("\(name) must be positive")
        }
        guard timeout >= 0, maxQRAge >= 0 else {
            throw ValidationError("--timeout and --max-qr-age must not be negative")
        }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ValidationError("--ca-file \(caFile) is not a readable file")
        }
    }

    /// The runner options these flags describe, with `ble` resolved.
    func runnerOptions(ble backend: BLEBackend) -> AuthenticatorRunner.Options {
        var options = AuthenticatorRunner.Options(ble: backend)
        options.domainID = domainID
        options.tunnelOrigin = tunnelURL.flatMap { try? TunnelServerOrigin(parsing: $0) }
        options.caFile = caFile
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
        if let qrImage { return try QRImageReader().read(contentsOfFile: qrImage) }
        if let qrCode, qrCode != "-" { return qrCode }
        if !json && isatty(STDIN_FILENO) == 1 {
            Console.writeError("Paste the FIDO:/ text of the QR code and press Enter: ")
        }
        return try await QRTextInput.readStandardInput()
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
