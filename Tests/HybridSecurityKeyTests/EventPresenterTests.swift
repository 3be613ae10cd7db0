import Foundation
import HybridClient
import HybridCore
import HybridLocalFiles
import HybridPresentation
import HybridSecurityKey
import Synchronization
import Testing

@testable import hybrid_security_key

/// The QR code's secrecy in `hybrid-security-key`: the QR image is private and deleted at each end
/// of a ceremony (success, failure or timeout, cancellation, the key's removal on a signal); the QR
/// code goes to stderr only on a terminal or when asked.
@Suite struct EventPresenterTests {
    static let url = "FIDO:/123456789012345678901234567890"

    /// What the presenter wrote, by stream.
    final class Output: Sendable {
        let text = Mutex<(stdout: String, stderr: String)>(("", ""))
        func write(_ string: String, toStdout: Bool) {
            text.withLock { if toStdout { $0.stdout += string } else { $0.stderr += string } }
        }
    }

    static func presenter(
        json: Bool = false, terminal: Bool = false, printQRURL: Bool = false, temporary: String
    ) -> (EventPresenter, Output, QRImageFile) {
        let output = Output()
        let image = QRImageFile(privateFileNamed: "qr.png", environment: ["TMPDIR": temporary])
        let presenter = EventPresenter(
            json: json, qr: QRDisplay(image: image, printQRURL: printQRURL, stderrIsTerminal: terminal),
            notifications: nil, output: { output.write($0, toStdout: $1) })
        return (presenter, output, image)
    }

    static func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
        let path = try PrivateFile.makeTemporaryDirectory(in: NSTemporaryDirectory(), prefix: "presenter-test-")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    /// The QR image path the presenter wrote for the last QR event (from its own text).
    static func imagePath(in stderr: String) -> String? {
        guard let start = stderr.range(of: "it is in ")?.upperBound else { return nil }
        return String(stderr[start...].prefix { $0 != " " })
    }

    @Test(arguments: [
        SecurityKeyEvent.done(command: .getAssertion, status: .ok),
        .failed(command: .makeCredential, status: .other, message: "the phone ceremony timed out"),
        .cancelled(.cancelCommand),
    ])
    func theImageIsPrivateAndGoesWhenTheCeremonyEnds(end: SecurityKeyEvent) throws {
        try Self.withTemporaryDirectory { temporary in
            let previous = umask(0o022)
            defer { umask(previous) }
            let (presenter, output, _) = Self.presenter(temporary: temporary)
            presenter.report(.ceremony(.qr(url: Self.url)))
            let stderr = output.text.withLock { $0.stderr }
            let path = try #require(Self.imagePath(in: stderr), "no image path in \(stderr)")
            var info = stat()
            #expect(lstat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
            #expect(lstat((path as NSString).deletingLastPathComponent, &info) == 0 && info.st_mode & 0o777 == 0o700)
            #expect(!stderr.contains("FIDO:/"), "stderr is not a terminal: \(stderr)")
            presenter.report(end)
            #expect(!FileManager.default.fileExists(atPath: path))
            presenter.stopped()
            #expect(!FileManager.default.fileExists(atPath: (path as NSString).deletingLastPathComponent))
        }
    }

    /// SIGINT / SIGTERM end the bridge, then `stopped()` runs: the image of a ceremony still
    /// waiting for the phone goes too.
    @Test func stoppingMidCeremonyDeletesTheImage() throws {
        try Self.withTemporaryDirectory { temporary in
            let (presenter, output, _) = Self.presenter(temporary: temporary)
            presenter.report(.ceremony(.qr(url: Self.url)))
            let path = try #require(Self.imagePath(in: output.text.withLock { $0.stderr }))
            presenter.stopped()
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func theURLIsShownOnlyOnATerminalOrWhenAsked() throws {
        try Self.withTemporaryDirectory { temporary in
            for (terminal, asked, json, shown) in [
                (false, false, false, false), (true, false, false, true), (false, true, false, true),
                (false, false, true, true),
            ] {
                let (presenter, output, _) = Self.presenter(
                    json: json, terminal: terminal, printQRURL: asked, temporary: temporary)
                presenter.report(.ceremony(.qr(url: Self.url)))
                let (stdout, stderr) = output.text.withLock { $0 }
                #expect(
                    (stdout + stderr).contains(Self.url) == shown, "terminal \(terminal) asked \(asked) json \(json)")
                #expect(!stderr.contains(Self.url) || terminal || asked)
                presenter.stopped()
            }
        }
    }

    /// `--json` names a phone ceremony's events as hybrid-client does (docs/client.md, "Events"),
    /// not `{"event":"progress","stage":…}`; the key's own events keep `"event"` first too.
    @Test func jsonUsesTheClientsEventNames() throws {
        try Self.withTemporaryDirectory { temporary in
            let (presenter, output, _) = Self.presenter(json: true, temporary: temporary)
            presenter.report(.ceremony(.connectingL2CAP(psm: 128)))
            presenter.report(.ceremony(.waitingForApproval))
            presenter.report(.done(command: .getAssertion, status: .ok))
            let stdout = output.text.withLock { $0.stdout }
            #expect(
                stdout == """
                    {"event":"connectingL2CAP","psm":128}
                    {"event":"waitingForApproval"}
                    {"event":"done","command":"getAssertion","status":0}

                    """)
            presenter.stopped()
        }
    }
}
