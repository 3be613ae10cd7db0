import Foundation
import HybridCTAP
import HybridClient
import HybridCore
import HybridPresentation

/// Shows ``HybridClientEvent``s on stderr: their sentences (``ClientEventPresentation``) with
/// elapsed/limit time, or their JSON lines with `--json`; the QR code through ``QRDisplay`` (the
/// terminal picture only where its secrecy rule allows, the private `--qr-file` image deleted by
/// ``finish()``). `--json` asks for the QR code explicitly (its first line carries the URL).
struct ProgressReporter: Sendable {
    let json: Bool
    let qr: QRDisplay
    let timeout: Duration
    let start: ContinuousClock.Instant

    /// A reporter for a ceremony of at most `timeout`, showing its QR code through `qr`
    /// (``QROutputOptions/display(defaultImage:)``; none for a failure before the QR code).
    init(json: Bool, qr: QRDisplay = QRDisplay(image: nil, printQRURL: false), timeout: Duration) {
        self.json = json
        self.qr = qr
        self.timeout = timeout
        self.start = .now
    }

    func report(_ event: HybridClientEvent) {
        let presentation = ClientEventPresentation(event)
        if case .qr(let url) = event {
            let image = qr.writeImage(of: url)
            if case .failed(let message) = image { reportFailure(message, kind: "warning") }
            if json {
                writeLine(presentation.line.text)
            } else {
                let (picture, message) = qr.text(url: url, image: image)
                Console.writeError(message + "\n", after: picture)
            }
        } else if json {
            writeLine(presentation.line.text)
        } else {
            writeLine(clock + " " + presentation.sentence)
        }
    }

    func reportFailure(_ message: String, kind: String, ctapStatus: CTAPStatusCode? = nil) {
        if json {
            var members: [(String, JSONLine)] = [("kind", .string(kind)), ("message", .string(message))]
            if let ctapStatus { members.append(("ctapStatus", .int(Int(ctapStatus.rawValue)))) }
            writeLine(JSONLine.event("error", members).text)
        } else {
            writeLine("hybrid-client: \(message)")
        }
    }

    /// How the tunnel ended after the answer, as a JSON line; nothing in text mode (the person has
    /// the answer already).
    func reportEnd(_ end: HybridSessionEnd) {
        guard json else { return }
        writeLine(ClientEventPresentation.line(for: end).text)
    }

    /// `[  3.2 s / 120 s]`: elapsed time and the overall limit.
    private var clock: String {
        let elapsed = ContinuousClock.now - start
        let value = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return "[" + String(format: "%5.1f s", value) + " / " + ClientEventPresentation.seconds(timeout) + "]"
    }

    /// Deletes the QR image file, if one was written: the ceremony is over.
    func finish() {
        qr.removeAll()
    }

    private func writeLine(_ text: String) {
        if json { Console.writeJSONError(text + "\n") } else { Console.writeError(text + "\n") }
    }
}
