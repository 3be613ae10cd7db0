import Foundation
import HybridBluetooth
import HybridCTAP
import HybridClient
import HybridCore
import HybridPresentation
import HybridSecurityKey
import Synchronization

/// Shows the bridge's events where the user is: JSON lines on stdout (`--json`), otherwise text
/// on stderr; the phone ceremony's events as every program shows them (``ClientEventPresentation``);
/// the QR code through ``QRDisplay`` (a private PNG file, deleted when the ceremony ends and when
/// the key is removed, and the terminal picture only where its secrecy rule allows: under the
/// systemd user unit stderr is the journal, readable by `adm` / `systemd-journal`) and, on a
/// desktop, as a notification that follows the ceremony's progress. `--json` asks for the QR
/// code on stdout.
final class EventPresenter: Sendable {
    let json: Bool
    let qr: QRDisplay
    let notifications: DesktopNotifications?
    /// Where a notification is shown from (``ChildTasks/run()`` runs in the command's task group).
    let tasks: ChildTasks
    /// Whether a phone ceremony is running (so a cancellation is reported as its end).
    private let ceremonyRunning = Mutex(false)
    private let output: @Sendable (_ text: String, _ toStdout: Bool) -> Void

    /// A presenter showing the QR code through `qr` (``QROutputOptions/display(defaultImage:)``).
    init(
        json: Bool, qr: QRDisplay, notifications: DesktopNotifications?, tasks: ChildTasks = ChildTasks(),
        output: @escaping @Sendable (_ text: String, _ toStdout: Bool) -> Void = {
            EventPresenter.standardOutput($0, toStdout: $1)
        }
    ) {
        self.json = json
        self.qr = qr
        self.notifications = notifications
        self.tasks = tasks
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
            line("ready", [("hidraw", .optional(path))])
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
            qr.removeImage()
            if json {
                line("done", [("command", .string(Self.name(command))), ("status", .int(Int(status.rawValue)))])
            } else {
                text(
                    status.isSuccess
                        ? "Done: \(Self.name(command)) answered by the phone"
                        : "The phone answered \(Self.name(command)) with \(status)")
            }
            notify("Security key", status.isSuccess ? "Done" : "The phone declined: \(status)")
        case .failed(let command, let status, let message):
            ceremonyRunning.withLock { $0 = false }
            qr.removeImage()
            if json {
                line(
                    "error",
                    [
                        ("command", .string(Self.name(command))), ("status", .int(Int(status.rawValue))),
                        ("message", .string(message)),
                    ])
            } else {
                text("Failed: \(message)")
            }
            notify("Security key: failed", message, urgent: true)
        case .answeredLocally(let command, let status, let reason):
            if json {
                line(
                    "local",
                    [
                        ("command", .string(Self.name(command))), ("status", .int(Int(status.rawValue))),
                        ("reason", .string(reason)),
                    ])
            }
        case .rewritten(let command, let rewrites):
            if json {
                line(
                    "rewritten",
                    [("command", .string(Self.name(command))), ("rewrites", .array(rewrites.map { .string($0) }))])
            }
        case .cancelled(let reason):
            let wasRunning = ceremonyRunning.withLock { running in
                defer { running = false }
                return running
            }
            qr.removeImage()
            let message = "cancelled by the program (\(reason))"
            if json {
                if wasRunning {
                    line("error", [("message", .string(message))])
                } else {
                    line("cancelled", [("reason", .string("\(reason)"))])
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
            write(ClientEventPresentation.line(for: end))
        case .phoneReachability(let reason):
            bluetooth(unreachableBecause: reason)
        }
    }

    /// The Bluetooth adapter went away or came back: `{"event":"bluetooth","available":…}`.
    private func bluetooth(unreachableBecause: String?) {
        if let reason = unreachableBecause {
            qr.removeImage()
            if json {
                line("bluetooth", [("available", .bool(false)), ("message", .string(reason))])
            } else {
                text("Bluetooth is not available, requests are refused until it is back: \(reason)")
            }
            notify("Security key: no Bluetooth", reason, urgent: true)
        } else {
            if json { line("bluetooth", [("available", .bool(true))]) } else { text("Bluetooth is back.") }
            notify("Security key", "Bluetooth is back")
        }
    }

    func fatal(_ message: String) {
        qr.removeAll()
        if json { line("error", [("message", .string(message))]) }
        text("hybrid-security-key: \(message)")
    }

    /// The broker gives this session no key now, or took it away (`removed`): a user switch, the
    /// lock screen, a remote session. Requests in flight were cancelled; the key comes back with
    /// another ``ready(hidraw:backend:)`` when the session is active again.
    func unavailable(_ reason: String, removed: Bool) {
        qr.removeAll()
        if json {
            line(removed ? "removed" : "unavailable", [("reason", .string(reason))])
        } else {
            text(removed ? "Security key removed: \(reason)." : "No security key for now: \(reason).")
        }
    }

    /// The key is gone (Ctrl-C, SIGTERM): the QR image and its directory go too.
    func stopped() {
        qr.removeAll()
        if json { line("stopped") } else { text("Security key removed.") }
    }

    private func ceremony(_ event: HybridClientEvent) {
        let presentation = ClientEventPresentation(event)
        switch event {
        case .qr(let url):
            ceremonyRunning.withLock { $0 = true }
            let image = qr.writeImage(of: url)
            if case .failed(let message) = image { text(message) }
            if json {
                write(.event(presentation.name, presentation.members + [("image", .optional(image.path))]))
            } else {
                let (picture, message) = qr.text(url: url, image: image)
                text("A program wants your security key. " + message, after: picture)
            }
            notify(
                "Scan with your phone", "A program on this computer wants your security key.", image: image.path,
                urgent: true)
            return
        case .done, .lingering:
            return  // reported as .done(command:status:); the linger ends with .tunnelClosed
        case .connecting, .connectingL2CAP:
            notify("Phone found", "Connecting…")
        case .waitingForApproval:
            notify("Approve on your phone", "Confirm the request on your phone.")
        case .waitingForDevice, .advertForAnotherQRCode, .l2capUnavailable, .channel, .handshake:
            break
        }
        if json { write(presentation.line) } else { text(presentation.sentence) }
    }

    private func notify(_ summary: String, _ body: String, image: String? = nil, urgent: Bool = false) {
        guard let notifications else { return }
        tasks.start { await notifications.show(summary: summary, body: body, imagePath: image, urgent: urgent) }
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

    /// An event line on stdout: `{"event":NAME,…members}` (``JSONLine/event(_:_:)``).
    private func line(_ name: String, _ members: [(String, JSONLine)] = []) {
        write(.event(name, members))
    }

    /// One JSON line on stdout, escaped for a terminal (``TerminalText/jsonEscaped(_:)``).
    private func write(_ line: JSONLine) {
        output(TerminalText.jsonEscaped(line.text) + "\n", true)
    }
}
