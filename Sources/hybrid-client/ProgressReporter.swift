import Foundation
import HybridCTAP
import HybridClient
import HybridCore
import HybridLocalFiles
import HybridPresentation

/// Shows ``HybridClientEvent``s on stderr: human text with the QR code and elapsed/limit time, or
/// one JSON object per line with `--json`. Optionally writes the QR code to a private image file
/// (``QRImageFile``), deleted by ``finish()``.
///
/// The QR code is the session's only secret, so in text mode it (picture and `FIDO:/` URL) is
/// shown only when stderr is a terminal or `--print-qr-url` asks: never into a log or journal.
/// `--json` is such an explicit request (its first line carries the URL).
struct ProgressReporter: Sendable {
    let json: Bool
    let qrImage: QRImageFile?
    let timeout: Duration
    let start: ContinuousClock.Instant
    /// Whether text mode may show the QR code on stderr.
    let showsQRCode: Bool

    init(
        json: Bool, qrFile: String?, timeout: Duration, printQRURL: Bool = false,
        stderrIsTerminal: Bool = isatty(STDERR_FILENO) != 0
    ) {
        self.json = json
        self.qrImage = qrFile.map { QRImageFile(path: $0) }
        self.timeout = timeout
        self.start = .now
        self.showsQRCode = printQRURL || stderrIsTerminal
    }

    func report(_ event: HybridClientEvent) {
        var imagePath: String?
        if case .qr(let url) = event, let qrImage { imagePath = writeImage(url, to: qrImage) }
        if case .qr = event, !json, !showsQRCode {
            writeLine(
                "QR code not shown: stderr is not a terminal"
                    + (imagePath.map { "; it is in \($0) (deleted when the ceremony ends)" }
                        ?? " (use --print-qr-url or --qr-file)"))
            return
        }
        if json {
            writeLine(Self.jsonLine(for: event))
        } else if case .qr(let url) = event {
            let picture = (try? QRCodeMatrix(encoding: url)).map { TerminalQRRenderer().render($0) } ?? ""
            Console.writeError(humanText(for: event) + "\n", after: picture)
        } else {
            writeLine(humanText(for: event))
        }
    }

    func reportFailure(_ message: String, kind: String, ctapStatus: CTAPStatusCode? = nil) {
        if json {
            var members: [String: Any] = ["kind": kind, "message": message]
            if let ctapStatus { members["ctapStatus"] = Int(ctapStatus.rawValue) }
            writeLine(Self.line("error", members))
        } else {
            writeLine("hybrid-client: \(message)")
        }
    }

    /// How the tunnel ended after the answer, as a JSON line; nothing in text mode (the person has
    /// the answer already).
    func reportEnd(_ end: HybridSessionEnd) {
        guard json else { return }
        writeLine(Self.jsonLine(for: end))
    }

    static func jsonLine(for end: HybridSessionEnd) -> String {
        var members: [String: Any] = ["lateUpdates": end.lateUpdates]
        switch end.reason {
        case .closedAtOnce: members["reason"] = "closedAtOnce"
        case .phoneClosed: members["reason"] = "phoneClosed"
        case .lingerExpired: members["reason"] = "lingerExpired"
        case .cancelled: members["reason"] = "cancelled"
        case .failed(let error):
            members["reason"] = "failed"
            members["message"] = error.description
        }
        return line("closed", members)
    }

    static func jsonLine(for event: HybridClientEvent) -> String {
        switch event {
        case .qr(let url): line("qr", ["url": url])
        case .waitingForDevice(let timeout): line("waitingForDevice", ["timeoutSeconds": timeout.components.seconds])
        case .advertForAnotherQRCode: line("advertForAnotherQRCode")
        case .connecting(let domain, let host): line("connecting", ["domain": Int(domain.rawValue), "host": host])
        case .connectingL2CAP(let psm): line("connectingL2CAP", ["psm": Int(psm)])
        case .l2capUnavailable(let why): line("l2capUnavailable", ["reason": why.description])
        case .channel(let kind): line("channel", ["channel": kind.rawValue])
        case .handshake: line("handshake")
        case .waitingForApproval: line("waitingForApproval")
        case .done: line("done")
        case .lingering(let limit): line("lingering", ["limitSeconds": limit.components.seconds])
        }
    }

    private func humanText(for event: HybridClientEvent) -> String {
        switch event {
        case .qr(let url):
            return "Scan this QR code with your phone's camera (or: \(url))"
        case .waitingForDevice(let timeout):
            return "\(clock) Waiting for your phone… (Bluetooth must be on; gives up after \(Self.seconds(timeout)))"
        case .advertForAnotherQRCode:
            return "\(clock) A phone is advertising for another QR code (an older one?); scan the one shown here"
        case .connecting(_, let host): return "\(clock) Phone found; connecting to \(host)"
        case .connectingL2CAP(let psm): return "\(clock) Phone found; connecting over Bluetooth (L2CAP PSM \(psm))"
        case .l2capUnavailable(let why): return "\(clock) Not using Bluetooth L2CAP: \(why)"
        case .channel(let kind): return "\(clock) Using the \(kind == .l2cap ? "Bluetooth L2CAP channel" : "tunnel")"
        case .handshake: return "\(clock) Connected; securing the session"
        case .waitingForApproval: return "\(clock) Waiting for approval on your phone…"
        case .done: return "\(clock) Done"
        case .lingering(let limit):
            return "\(clock) Keeping the tunnel open for a late update from the phone (up to \(Self.seconds(limit)))"
        }
    }

    /// `[  3.2 s / 120 s]`: elapsed time and the overall limit.
    private var clock: String {
        let elapsed = ContinuousClock.now - start
        let value = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return "[" + String(format: "%5.1f s", value) + " / " + Self.seconds(timeout) + "]"
    }

    private static func seconds(_ duration: Duration) -> String { "\(duration.components.seconds) s" }

    /// Deletes the QR image file, if one was written: the ceremony is over.
    func finish() {
        qrImage?.removeAll()
    }

    private func writeImage(_ url: String, to file: QRImageFile) -> String? {
        do {
            return try file.write(try QRCodeMatrix(encoding: url))
        } catch let error as PrivateFileError {
            reportFailure("cannot write the QR code image: \(error)", kind: "warning")
        } catch {
            reportFailure("cannot draw the QR code: \(error)", kind: "warning")
        }
        return nil
    }

    /// One JSON object on one line: `"event"` first, then `members` with sorted keys.
    static func line(_ event: String, _ members: [String: Any] = [:]) -> String {
        var text = "{" + fragment("event") + ":" + fragment(event)
        for key in members.keys.sorted() {
            guard let value = members[key] else { continue }
            text += "," + fragment(key) + ":" + fragment(value)
        }
        return text + "}"
    }

    private static func fragment(_ value: Any) -> String {
        let options: JSONSerialization.WritingOptions = [.fragmentsAllowed, .withoutEscapingSlashes]
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: options) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    private func writeLine(_ text: String) {
        if json { Console.writeJSONError(text + "\n") } else { Console.writeError(text + "\n") }
    }
}
