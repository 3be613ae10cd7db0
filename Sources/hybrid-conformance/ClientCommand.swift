import ArgumentParser
import Foundation
import HybridBluetooth
import HybridClient
import HybridConformance
import HybridConformanceLive
import HybridCore

/// `hybrid-conformance client`: a strict client (browser) for an authenticator under test.
struct ClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client",
        abstract:
            "Act as a strict hybrid client (a browser) and judge the authenticator (phone) that scans its QR codes.",
        discussion: """
            Runs two QR ceremonies, as a browser does: a makeCredential, then a getAssertion that allows \
            only the new credential. Each QR code is shown in the terminal (on stderr), written to --qr-file \
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

    @Option(help: "Also write each QR code to this PNG file (overwritten by the second ceremony).")
    var qrFile: String?

    @Flag(help: "Progress as JSON lines on stderr instead of text and a terminal QR code.")
    var jsonEvents = false

    @Option(help: "Append progress as JSON lines to this file ({\"event\":\"qr\",\"url\":...} for each QR code).")
    var eventsFile: String?

    @OptionGroup var report: ReportOptions

    func validate() throws {
        if let ble, BLEBackend(name: ble, adapter: adapter) == nil {
            throw ValidationError("--ble must be hci, bluez or sim, not \"\(ble)\"")
        }
        if let tunnelURL, (try? TunnelServerOrigin(parsing: tunnelURL)) == nil {
            throw ValidationError("--tunnel-url must be ws://host[:port] or wss://host[:port]")
        }
        guard timeout > 0, timeout <= 3600 else {
            throw ValidationError("--timeout must be between 0 and 3600 seconds")
        }
        guard (try? WebOrigin("https://" + rpID)) != nil else {
            throw ValidationError("--rp-id \(rpID) is not a host name")
        }
    }

    func run() async throws {
        let backend: BLEBackend
        if let ble, let named = BLEBackend(name: ble, adapter: adapter) {
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
            testTunnelOverrides: overrides)
        let progress = ClientProgress(jsonOnStderr: jsonEvents, eventsFile: eventsFile, qrFile: qrFile)
        let result = try await ClientConformanceRun(rpID: rpID, clientOptions: options).run { progress.show($0) }
        try report.emit(result)
    }
}

/// Shows the client mode's progress: the QR code in the terminal and as a PNG, and JSON lines on
/// stderr and in a file.
struct ClientProgress: Sendable {
    let jsonOnStderr: Bool
    let eventsFile: String?
    let qrFile: String?

    func show(_ event: HybridClientEvent) {
        let json = Self.jsonLine(event)
        if let eventsFile { Self.append(json + "\n", to: eventsFile) }
        if jsonOnStderr {
            Self.writeError(json + "\n")
        } else if case .qr(let url) = event {
            let picture = (try? QRCodeMatrix(encoding: url)).map { TerminalQRRenderer().render($0) } ?? ""
            Self.writeError(picture + "Scan this QR code with the authenticator under test (or: \(url))\n")
        } else {
            Self.writeError("hybrid-conformance: \(event.stage.rawValue)\n")
        }
        if case .qr(let url) = event, let qrFile {
            do {
                try QRImageWriter().write(try QRCodeMatrix(encoding: url), toFile: qrFile)
            } catch {
                Self.writeError("hybrid-conformance: cannot write the QR code to \(qrFile): \(error)\n")
            }
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

    private static func append(_ text: String, to path: String) {
        if !FileManager.default.fileExists(atPath: path) { FileManager.default.createFile(atPath: path, contents: nil) }
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        handle.seekToEndOfFile()
        handle.write(Data(text.utf8))
        try? handle.close()
    }

    private static func writeError(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}
