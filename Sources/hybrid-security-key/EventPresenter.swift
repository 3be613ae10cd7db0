import Foundation
import HybridBluetooth
import HybridCTAP
import HybridClient
import HybridCore
import HybridPresentation
import HybridSecurityKey
import Synchronization

/// Shows the bridge's events where the user is: JSON lines on stdout (`--json`), otherwise text
/// on stderr; the QR code also as a private PNG file (``QRImageFile``, deleted when the ceremony
/// ends and when the key is removed) and, on a desktop, as a notification that follows the
/// ceremony's progress.
///
/// The QR code is the ceremony's only secret: in text mode its picture and `FIDO:/` URL go to
/// stderr only when stderr is a terminal or `--print-qr-url` asks (under the systemd user unit
/// stderr is the journal, readable by `adm` / `systemd-journal`). `--json` asks for it on stdout.
final class EventPresenter: Sendable {
    let json: Bool
    let qrImage: QRImageFile
    let notifications: DesktopNotifications?
    /// Whether text mode may show the QR code on stderr.
    let showsQRCode: Bool
    /// Whether a phone ceremony is running (so a cancellation is reported as its end).
    private let ceremonyRunning = Mutex(false)
    private let output: @Sendable (_ text: String, _ toStdout: Bool) -> Void

    init(
        json: Bool, qrImage: QRImageFile, notifications: DesktopNotifications?, printQRURL: Bool = false,
        stderrIsTerminal: Bool = isatty(STDERR_FILENO) != 0,
        output: @escaping @Sendable (_ text: String, _ toStdout: Bool) -> Void = {
            EventPresenter.standardOutput($0, toStdout: $1)
        }
    ) {
        self.json = json
        self.qrImage = qrImage
        self.notifications = notifications
        self.showsQRCode = printQRURL || stderrIsTerminal
        self.output = output
    }

    /// `hybrid-security-key-qr-PID.png` in `$XDG_RUNTIME_DIR` (when it is this user's 0700
    /// directory) or in a fresh `mkdtemp` directory.
    static func defaultQRImage() -> QRImageFile {
        QRImageFile(privateFileNamed: "hybrid-security-key-qr-\(getpid()).png")
    }

    /// Writes to stdout or stderr.
    static func standardOutput(_ text: String, toStdout: Bool) {
        (toStdout ? FileHandle.standardOutput : FileHandle.standardError).write(Data(text.utf8))
    }

    func ready(hidraw path: String?, backend: String) {
        if json {
            line(["event": "ready", "hidraw": path ?? NSNull()])
        } else {
            text("Security key ready\(path.map { " at \($0)" } ?? "") (Bluetooth: \(backend)). Waiting for programs…")
        }
    }

    func report(_ event: SecurityKeyEvent) {
        switch event {
        case .ceremony(let progress): ceremony(progress)
        case .forwarding: break  // the QR event follows (WindowPresenter names the RP ID)
        case .done(let command, let status):
            ceremonyRunning.withLock { $0 = false }
            qrImage.removeImage()
            if json {
                line(["event": "done", "command": Self.name(command), "status": Int(status.rawValue)])
            } else {
                text(
                    status.isSuccess
                        ? "Done: \(Self.name(command)) answered by the phone"
                        : "The phone answered \(Self.name(command)) with \(status)")
            }
            notify("Security key", status.isSuccess ? "Done" : "The phone declined: \(status)")
        case .failed(let command, let status, let message):
            ceremonyRunning.withLock { $0 = false }
            qrImage.removeImage()
            if json {
                line([
                    "event": "error", "command": Self.name(command), "status": Int(status.rawValue), "message": message,
                ])
            } else {
                text("Failed: \(message)")
            }
            notify("Security key: failed", message, urgent: true)
        case .answeredLocally(let command, let status, let reason):
            if json {
                line([
                    "event": "local", "command": Self.name(command), "status": Int(status.rawValue), "reason": reason,
                ])
            }
        case .rewritten(let command, let rewrites):
            if json { line(["event": "rewritten", "command": Self.name(command), "rewrites": rewrites]) }
        case .cancelled(let reason):
            let wasRunning = ceremonyRunning.withLock { running in
                defer { running = false }
                return running
            }
            qrImage.removeImage()
            let message = "cancelled by the program (\(reason))"
            if json {
                if wasRunning {
                    line(["event": "error", "message": message])
                } else {
                    line(["event": "cancelled", "reason": "\(reason)"])
                }
            } else {
                text("Request \(message)")
            }
            if wasRunning { notify("Security key", "Cancelled") }
        case .wink:
            if !json { text("A program asked the key to identify itself (wink)") }
        case .tunnelClosed(let end):
            // The program has its answer already; only JSON consumers hear how the tunnel ended.
            guard json else { return }
            var members: [String: Any] = ["event": "closed", "lateUpdates": end.lateUpdates, "reason": "\(end.reason)"]
            if case .failed(let error) = end.reason {
                members["reason"] = "failed"
                members["message"] = error.description
            }
            line(members)
        case .phoneReachability(let reason):
            bluetooth(unreachableBecause: reason)
        }
    }

    /// The Bluetooth adapter went away or came back: `{"event":"bluetooth","available":…}`.
    private func bluetooth(unreachableBecause: String?) {
        if let reason = unreachableBecause {
            qrImage.removeImage()
            if json {
                line(["event": "bluetooth", "available": false, "message": reason])
            } else {
                text("Bluetooth is not available, requests are refused until it is back: \(reason)")
            }
            notify("Security key: no Bluetooth", reason, urgent: true)
        } else {
            if json { line(["event": "bluetooth", "available": true]) } else { text("Bluetooth is back.") }
            notify("Security key", "Bluetooth is back")
        }
    }

    func fatal(_ message: String) {
        qrImage.removeAll()
        if json { line(["event": "error", "message": message]) }
        text("hybrid-security-key: \(message)")
    }

    /// The broker gives this session no key now, or took it away (`removed`): a user switch, the
    /// lock screen, a remote session. Requests in flight were cancelled; the key comes back with
    /// another ``ready(hidraw:backend:)`` when the session is active again.
    func unavailable(_ reason: String, removed: Bool) {
        qrImage.removeAll()
        if json {
            line(["event": removed ? "removed" : "unavailable", "reason": reason])
        } else {
            text(removed ? "Security key removed: \(reason)." : "No security key for now: \(reason).")
        }
    }

    /// The key is gone (Ctrl-C, SIGTERM): the QR image and its directory go too.
    func stopped() {
        qrImage.removeAll()
        if json { line(["event": "stopped"]) } else { text("Security key removed.") }
    }

    private func ceremony(_ event: HybridClientEvent) {
        switch event {
        case .qr(let url):
            ceremonyRunning.withLock { $0 = true }
            let matrix = try? QRCodeMatrix(encoding: url)
            var imagePath: String?
            if let matrix {
                do {
                    imagePath = try qrImage.write(matrix)
                } catch {
                    text("cannot write the QR code image: \(error)")
                }
            }
            if json {
                line(["event": "qr", "url": url, "image": imagePath ?? NSNull()])
            } else if showsQRCode {
                let picture = matrix.map { TerminalQRRenderer().render($0) } ?? ""
                text(
                    "A program wants your security key: scan this QR code with your phone (image: \(imagePath ?? "none"); \(url))",
                    after: picture)
            } else {
                text(
                    "A program wants your security key: scan the QR code with your phone (image: \(imagePath ?? "none"))"
                )
            }
            notify(
                "Scan with your phone", "A program on this computer wants your security key.", image: imagePath,
                urgent: true)
        case .waitingForDevice:
            progress("waitingForDevice", "Waiting for your phone (Bluetooth must be on)…")
        case .advertForAnotherQRCode:
            progress("advertForAnotherQRCode", "A phone is advertising for another QR code; scan the one shown now")
        case .connecting(_, let host):
            progress("connecting", "Phone found; connecting to \(host)")
            notify("Phone found", "Connecting…")
        case .connectingL2CAP:
            progress("connecting", "Phone found; connecting over Bluetooth")
            notify("Phone found", "Connecting…")
        case .l2capUnavailable(let why):
            if json {
                line(["event": "progress", "stage": "l2capUnavailable", "reason": why.description])
            } else {
                text("Not using Bluetooth L2CAP: \(why)")
            }
        case .channel(let kind):
            progress("channel", "Using the \(kind == .l2cap ? "Bluetooth L2CAP channel" : "tunnel")")
        case .handshake:
            progress("handshake", "Connected; securing the session")
        case .waitingForApproval:
            progress("waitingForApproval", "Approve on your phone…")
            notify("Approve on your phone", "Confirm the request on your phone.")
        case .done, .lingering:
            break  // reported as .done(command:status:); the linger ends with .tunnelClosed
        }
    }

    private func progress(_ stage: String, _ message: String) {
        if json { line(["event": "progress", "stage": stage]) } else { text(message) }
    }

    private func notify(_ summary: String, _ body: String, image: String? = nil, urgent: Bool = false) {
        guard let notifications else { return }
        Task { await notifications.show(summary: summary, body: body, imagePath: image, urgent: urgent) }
    }

    private static func name(_ command: CTAPCommand) -> String {
        command.name ?? "0x" + String(command.rawValue, radix: 16)
    }

    /// A message for people on stderr, after `picture` (this program's own drawing, kept as is);
    /// the message passes through ``TerminalText/printableLines(_:)``: it carries RP IDs and
    /// user names from programs' requests.
    private func text(_ message: String, after picture: String = "") {
        output(picture + TerminalText.printableLines(message) + "\n", false)
    }

    /// One JSON object per line on stdout, keys sorted, `"event"` among them.
    private func line(_ members: [String: Any]) {
        let options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? JSONSerialization.data(withJSONObject: members, options: options) else { return }
        output(TerminalText.jsonEscaped(String(decoding: data, as: UTF8.self)) + "\n", true)
    }
}
