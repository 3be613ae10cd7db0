import ArgumentParser
import Foundation
import HybridBluetooth
import HybridClient
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

    @Option(
        help:
            ArgumentHelp(
                "Bluetooth backend: hci, bluez, or sim (the simulated air of $HYBRID_SIMULATED_AIR_DIR). "
                    + "Default: bluez if bluetoothd runs, else hci.")
    )
    var ble: String?

    @Option(help: "Bluetooth adapter, e.g. hci0. Default: the first one.")
    var adapter: String?

    @Option(
        help:
            ArgumentHelp(
                "Connect to this relay (ws:// or wss://host[:port]) when the advert names tunnel domain 0 or 1, "
                    + "instead of the domain's server.")
    )
    var tunnelURL: String?

    @Option(help: "PEM file of extra CA certificates to trust for wss:// tunnel servers.")
    var caFile: String?

    @Option(help: "The RP ID of the requests.")
    var rpID = "example.com"

    @Option(help: "Seconds each ceremony may take, from the QR code to the answer.")
    var timeout: Double = 120

    @Option(
        help: "Seconds the QR code without a timestamp waits for a handshake that a careful authenticator never starts."
    )
    var refusalWait: Double = 30

    @Option(
        help:
            "Also write each QR code to this new PNG file (mode 0600, replaced by the next ceremony, deleted at the end)."
    )
    var qrFile: String?

    @Flag(
        name: .customLong("print-qr-url"),
        help: "Print the QR code and its FIDO:/ URL on stderr even when stderr is not a terminal.")
    var printQRURL = false

    @Flag(
        help: """
            Also judge the digital-credential path: five more QR codes of request type dcp (a valid \
            request, malformed JSON, credential.create, an oversized request, a valid request again; \
            protocol.md §7.8).
            """)
    var digitalCredentials = false

    @Flag(help: "Progress as JSON lines on stderr instead of text and a terminal QR code.")
    var jsonEvents = false

    @Option(help: "Append progress as JSON lines to this file ({\"event\":\"qr\",\"url\":...} for each QR code).")
    var eventsFile: String?

    @OptionGroup var report: ReportOptions

    func validate() throws {
        if let ble {
            do { _ = try BLEBackend(argument: ble, adapter: adapter) } catch {
                throw ValidationError(error.description)
            }
        }
        if let tunnelURL, (try? TunnelServerOrigin(parsing: tunnelURL)) == nil {
            throw ValidationError("--tunnel-url must be ws://host[:port] or wss://host[:port]")
        }
        guard timeout > 0, timeout <= 3600, refusalWait > 0, refusalWait <= 3600 else {
            throw ValidationError("--timeout and --refusal-wait must be between 0 and 3600 seconds")
        }
        guard (try? WebOrigin("https://" + rpID)) != nil else {
            throw ValidationError("--rp-id \(rpID) is not a host name")
        }
    }

    func run() async throws {
        let backend: BLEBackend
        if let ble, let named = try? BLEBackend(argument: ble, adapter: adapter) {
            backend = named
        } else {
            backend = await BLEBackend.automatic(adapter: adapter)
        }
        var overrides: [TunnelDomainID: TunnelServerOrigin] = [:]
        if let tunnelURL, let origin = try? TunnelServerOrigin(parsing: tunnelURL) {
            overrides = [.google: origin, .apple: origin]
        }
        let options = HybridClientOptions(
            bluetooth: backend, timeout: .milliseconds(Int64(timeout * 1000)), additionalCAFile: caFile,
            tunnelServers: overrides)
        let progress = ClientProgress(
            jsonOnStderr: jsonEvents, eventsFile: eventsFile, qrImage: qrFile.map { QRImageFile(path: $0) },
            showsQRCode: printQRURL || isatty(STDERR_FILENO) != 0)
        defer { progress.qrImage?.removeAll() }
        var run = ClientConformanceRun(
            rpID: rpID, clientOptions: options, refusalWait: .milliseconds(Int64(refusalWait * 1000)))
        run.includesDigitalCredentials = digitalCredentials
        let result = try await run.run { progress.show($0) }
        try report.emit(result)
    }
}

/// Shows the client mode's progress: the QR code in the terminal and as a private PNG
/// (``QRImageFile``, written before the event is announced), and JSON lines on stderr and in a
/// private file (``PrivateFile``: 0600, this user's). The QR code is the session's secret: in
/// text mode it is shown only on a terminal (or with `--print-qr-url`).
struct ClientProgress: Sendable {
    let jsonOnStderr: Bool
    let eventsFile: String?
    let qrImage: QRImageFile?
    let showsQRCode: Bool

    func show(_ event: HybridClientEvent) {
        if case .qr(let url) = event, let qrImage {
            do {
                _ = try qrImage.write(try QRCodeMatrix(encoding: url))
            } catch {
                Self.writeError("hybrid-conformance: cannot write the QR code image: \(error)\n")
            }
        }
        let json = Self.jsonLine(event)
        if let eventsFile {
            do {
                try PrivateFile.append(Array((json + "\n").utf8), to: eventsFile)
            } catch {
                Self.writeError("hybrid-conformance: --events-file: \(error)\n")
            }
        }
        if jsonOnStderr {
            Console.writeJSONError(json + "\n")
        } else if case .qr(let url) = event {
            if showsQRCode {
                let picture = (try? QRCodeMatrix(encoding: url)).map { TerminalQRRenderer().render($0) } ?? ""
                Console.writeError("Scan this QR code with the authenticator under test (or: \(url))\n", after: picture)
            } else {
                Self.writeError(
                    "hybrid-conformance: QR code not shown (stderr is not a terminal; see --qr-file, --print-qr-url)\n")
            }
        } else {
            Self.writeError("hybrid-conformance: \(event.stage.rawValue)\n")
        }
    }

    /// `{"event":"qr","url":"FIDO:/…"}`, or `{"event":"<stage>"}` for the other events.
    static func jsonLine(_ event: HybridClientEvent) -> String {
        var members: [(String, String)] = []
        if case .qr(let url) = event { members.append(("url", url)) }
        let name = if case .qr = event { "qr" } else { event.stage.rawValue }
        return "{" + ([("event", name)] + members).map { "\(quoted($0.0)):\(quoted($0.1))" }.joined(separator: ",")
            + "}"
    }

    private static func quoted(_ text: String) -> String {
        let data =
            (try? JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed, .withoutEscapingSlashes]))
            ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    private static func writeError(_ text: String) { Console.writeError(text) }
}
