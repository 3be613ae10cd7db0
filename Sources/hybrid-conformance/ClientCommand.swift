import ArgumentParser
import Foundation
import HybridBluetooth
import HybridClient
import HybridCommandLine
import HybridConformance
import HybridConformanceLive
import HybridCore
import HybridLocalFiles
import HybridPresentation

/// `hybrid-conformance client`: a strict client (browser) for an authenticator under test.
struct ClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client",
        abstract:
            "Act as a strict hybrid client (a browser) and judge the authenticator (phone) that scans its QR codes.",
        discussion: """
            Runs two QR ceremonies, as a browser does: a makeCredential, then a getAssertion that allows \
            only the new credential. Then three probes, each with its own QR code: a getAssertion with up \
            false (must be refused or ask the user), a session with a second getAssertion after the first \
            reply (must be refused or closed), and a QR code without a timestamp (must get no handshake \
            within --refusal-wait). Each QR code is shown in the terminal (on stderr), written to --qr-file \
            (PNG), and given as a JSON line {"event":"qr","url":"FIDO:/..."} on stderr with --json-events and \
            in --events-file, so that a script can hand it to the authenticator. Every check has a stable ID \
            and a spec reference; the exit status is non-zero when a check fails.
            """
    )

    @OptionGroup var bluetooth: BluetoothOptions

    @OptionGroup var dataChannel: DataChannelOptions

    @Option(
        help:
            ArgumentHelp(
                "Connect to this relay (ws:// or wss://host[:port]) when the advert names tunnel domain 0 or 1, "
                    + "instead of the domain's server.")
    )
    var tunnelURL: String?

    @OptionGroup var ca: CAFileOption

    @Option(help: "The RP ID of the requests.")
    var rpID = "example.com"

    @Option(help: "Seconds each ceremony may take, from the QR code to the answer.")
    var timeout: Double = 120

    @Option(
        help: "Seconds the QR code without a timestamp waits for a handshake that a careful authenticator never starts."
    )
    var refusalWait: Double = 30

    @OptionGroup var qr: QROutputOptions

    @Flag(
        help: """
            Also judge the digital-credential path: five more QR codes of request type dcp (a valid \
            request, malformed JSON, credential.create, an oversized request, a valid request again; \
            protocol.md §7.8).
            """)
    var digitalCredentials = false

    @Option(
        help: ArgumentHelp(
            "Also judge the crypter's sequence limit (protocol.md §7.1): two more QR codes whose sessions send "
                + "2^24 empty updates over the tunnel before a getInfo. Each may take this many seconds more than "
                + "--timeout.",
            valueName: "seconds"))
    var sequenceLimit: Double?

    @Flag(help: "Progress as JSON lines on stderr instead of text and a terminal QR code.")
    var jsonEvents = false

    @Option(help: "Append progress as JSON lines to this file ({\"event\":\"qr\",\"url\":...} for each QR code).")
    var eventsFile: String?

    @OptionGroup var report: ReportOptions

    func validate() throws {
        if let tunnelURL, (try? TunnelServerOrigin(parsing: tunnelURL)) == nil {
            throw ValidationError("--tunnel-url must be ws://host[:port] or wss://host[:port]")
        }
        guard timeout > 0, timeout <= 3600, refusalWait > 0, refusalWait <= 3600 else {
            throw ValidationError("--timeout and --refusal-wait must be between 0 and 3600 seconds")
        }
        if let sequenceLimit, !(sequenceLimit > 0 && sequenceLimit <= 7200) {
            throw ValidationError("--sequence-limit must be between 0 and 7200 seconds")
        }
        guard (try? WebOrigin("https://" + rpID)) != nil else {
            throw ValidationError("--rp-id \(rpID) is not a host name")
        }
    }

    func run() async throws {
        let backend = await bluetooth.backend()
        var overrides: [TunnelDomainID: TunnelServerOrigin] = [:]
        if let tunnelURL, let origin = try? TunnelServerOrigin(parsing: tunnelURL) {
            overrides = [.google: origin, .apple: origin]
        }
        var options = HybridClientOptions(
            bluetooth: backend, timeout: .milliseconds(Int64(timeout * 1000)), additionalCAFile: ca.path,
            tunnelServers: overrides)
        dataChannel.apply(to: &options)
        let progress = ClientProgress(
            jsonOnStderr: jsonEvents, eventsFile: eventsFile, qr: qr.display())
        defer { progress.qr.removeAll() }
        var run = ClientConformanceRun(
            rpID: rpID, clientOptions: options, refusalWait: .milliseconds(Int64(refusalWait * 1000)))
        run.includesDigitalCredentials = digitalCredentials
        run.sequenceLimitTime = sequenceLimit.map { .milliseconds(Int64($0 * 1000)) }
        let result = try await run.run { progress.show($0) }
        try report.emit(result)
    }
}

/// Shows the client mode's progress as every program shows a client's events
/// (``ClientEventPresentation``): the QR code through ``QRDisplay`` (a private PNG, written before
/// the event is announced; the terminal picture only where its secrecy rule allows), and JSON lines
/// on stderr and in a private file (``PrivateFile``: 0600, this user's).
struct ClientProgress: Sendable {
    let jsonOnStderr: Bool
    let eventsFile: String?
    let qr: QRDisplay

    func show(_ event: HybridClientEvent) {
        let presentation = ClientEventPresentation(event)
        var image = QRDisplay.ImageOutcome.none
        if case .qr(let url) = event {
            image = qr.writeImage(of: url)
            if case .failed(let message) = image { Console.writeError("hybrid-conformance: \(message)\n") }
        }
        let json = presentation.line.text
        if let eventsFile {
            do {
                try PrivateFile.append(Array((json + "\n").utf8), to: eventsFile)
            } catch {
                Console.writeError("hybrid-conformance: --events-file: \(error)\n")
            }
        }
        if jsonOnStderr {
            Console.writeJSONError(json + "\n")
        } else if case .qr(let url) = event {
            let (picture, message) = qr.text(url: url, image: image)
            Console.writeError(message + "\n", after: picture)
        } else {
            Console.writeError("hybrid-conformance: \(presentation.sentence)\n")
        }
    }
}
