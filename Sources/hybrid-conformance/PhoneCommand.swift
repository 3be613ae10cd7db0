import ArgumentParser
import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridClient
import HybridCommandLine
import HybridConformance
import HybridConformanceLive
import HybridCore
import HybridPresentation
import Logging

/// `hybrid-conformance phone`: this machine as a strict phone for a client under test.
struct PhoneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phone",
        abstract: "Act as a strict phone (authenticator) and judge the client that shows the QR code.",
        usage: """
            hybrid-conformance phone [- | --qr-image FILE | 'FIDO:/...'] [--tunnel-url URL] [--ca-file PEM]
                                     [--ble bluez|hci|sim] [--profile P] [--late-update-delay S] [--fault F]
                                     [--json] [--junit FILE]
            """,
        discussion: """
            Give it the FIDO:/ text of the client's QR code on standard input ('-' or nothing; the text as \
            the argument still works, but ps shows it to every local user), or --qr-image FILE to read it \
            from a screenshot. It judges the QR code, opens the tunnel (on the \
            domain's tunnel server or the relay of --tunnel-url), advertises over Bluetooth LE, answers the \
            handshake and the client's request with a test authenticator that approves everything (user \
            verified), and judges every client message: handshake layout, padding, message types, canonical \
            CTAP CBOR, no silent preflight, one request, and a shutdown after the reply. For a "dcp" QR code \
            the phone offers "dc" and answers the client's JSON request with a placeholder presentation, \
            judging the features it was sent under and its envelope (strict JSON, Chromium's shape and form).

            --profile makes the phone behave like a real variant (strict, android, ios, revision0, \
            old-crypter, late-update: its update comes --late-update-delay seconds after the client's \
            shutdown); --fault makes it misbehave (corrupt-frame, wrong-routing-id, \
            never-answer, oversized, garbage-after-handshake; for a "dcp" QR code withhold-dc, error-answer, \
            malformed-answer, wrong-type-answer) and checks that the client ends the session \
            within --fault-limit seconds; closed-l2cap-psm advertises a CTAP 2.3 L2CAP PSM nobody listens on \
            (--ble hci) and checks that the client completes the session over the tunnel instead. Exit \
            status 1 when a check fails.
            """
    )

    @OptionGroup var qrSource: QRCodeSourceOptions

    @OptionGroup var tunnel: PhoneTunnelOptions

    @OptionGroup var bluetooth: BluetoothOptions

    @Option(
        help: ArgumentHelp(
            "Phone variant: \(PhoneProfile.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "profile"))
    var profile: String = PhoneProfile.strict.rawValue

    @Option(
        help: ArgumentHelp(
            "Deliberate fault: \(PhoneFault.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "fault"))
    var fault: String?

    @Option(help: "Seconds the client has to end the session after a fault.")
    var faultLimit: Double = 60

    @Option(
        help: ArgumentHelp(
            "With --profile late-update: seconds the phone waits after the client's shutdown before its update "
                + "(Chromium's test phone waits 10; a client that closes first gets a warning).",
            valueName: "seconds"))
    var lateUpdateDelay: Double = Double(PhoneConformanceRun.defaultLateUpdateDelay.components.seconds)

    @Option(
        help: ArgumentHelp(
            "Keep the test passkeys in this (unencrypted) file, so a get() finds an earlier create()'s passkey.",
            valueName: "path"))
    var store: String?

    @Option(help: "Seconds to advertise waiting for the client.")
    var clientTimeout: Double = 120

    @Option(help: "Seconds for the whole session.")
    var timeout: Double = 300

    @OptionGroup var log: LogOptions

    @OptionGroup var report: ReportOptions

    func validate() throws {
        guard PhoneProfile(rawValue: profile) != nil else { throw ValidationError("unknown --profile \(profile)") }
        if let fault, PhoneFault(rawValue: fault) == nil { throw ValidationError("unknown --fault \(fault)") }
        guard clientTimeout > 0, timeout > 0, faultLimit > 0 else {
            throw ValidationError("time limits must be positive")
        }
        guard lateUpdateDelay >= 0, lateUpdateDelay < timeout else {
            throw ValidationError("--late-update-delay must be at least 0 and below --timeout")
        }
    }

    func run() async throws {
        log.bootstrapStandardError()
        let logger = Logger(label: "hybrid.conformance.phone")
        let text: String
        do {
            text = try await qrSource.read(prompting: !report.json)
        } catch {
            Console.writeError("hybrid-conformance phone: \(error)\n")
            throw ExitCode.failure
        }
        let options = runnerOptions(ble: await bluetooth.backend())
        let passkeys: any PasskeyStore
        if let store {
            passkeys = try FilePasskeyStore(path: store, protection: .insecurePlaintext)
        } else {
            passkeys = InMemoryPasskeyStore()
        }
        let authenticator = CTAPAuthenticator(
            store: passkeys, userInteraction: AutoApproveUserInteraction(userVerification: true), logger: logger)
        var phone = PhoneConformanceRun(runnerOptions: options, authenticator: authenticator, logger: logger)
        phone.profile = PhoneProfile(rawValue: profile) ?? .strict
        phone.fault = fault.flatMap(PhoneFault.init(rawValue:))
        phone.faultLimit = .seconds(faultLimit)
        phone.lateUpdateDelay = .seconds(lateUpdateDelay)
        try report.emit(await phone.run(qrCode: text))
    }

    /// The runner options these flags describe, with `ble` resolved.
    func runnerOptions(ble backend: BLEBackend) -> AuthenticatorRunner.Options {
        var options = AuthenticatorRunner.Options(ble: backend)
        options.domainID = tunnel.domainID
        options.tunnelOrigin = tunnel.tunnelOrigin
        options.caFile = tunnel.caFile
        options.clientWaitTimeout = .seconds(clientTimeout)
        options.overallTimeout = .seconds(timeout)
        options.maxQRCodeAge = nil  // phone.qr.timestamp judges it
        return options
    }
}
