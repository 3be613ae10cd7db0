import Foundation
import HybridLocalFiles
import Testing

@testable import HybridPresentation

/// The QR code's one secrecy rule: its picture and URL go to stderr only on a terminal or with
/// `--print-qr-url`; its image is a private file, gone when the ceremony ends.
@Suite struct QRDisplayTests {
    static let url = "FIDO:/123456789012345678901234567890"

    @Test(arguments: [(false, false, false), (true, false, true), (false, true, true), (true, true, true)])
    func theURLIsShownOnlyOnATerminalOrWhenAsked(terminal: Bool, asked: Bool, shown: Bool) {
        let display = QRDisplay(image: nil, printQRURL: asked, stderrIsTerminal: terminal)
        let (picture, message) = display.text(url: Self.url, image: .none)
        #expect(message.contains(Self.url) == shown)
        #expect(!picture.isEmpty == shown)
        #expect(message.contains("QR code not shown") == !shown)
        if !shown { #expect(message.contains("--print-qr-url")) }
    }

    @Test func theImageIs0600AndNamedInsteadOfTheURL() throws {
        let directory = try PrivateFile.makeTemporaryDirectory(in: NSTemporaryDirectory(), prefix: "qr-display-")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let display = QRDisplay(
            image: QRImageFile(path: directory + "/qr.png"), printQRURL: false, stderrIsTerminal: false)
        let image = display.writeImage(of: Self.url)
        let path = try #require(image.path)
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let (picture, message) = display.text(url: Self.url, image: image)
        #expect(picture.isEmpty && !message.contains("FIDO:/"))
        #expect(message.contains("it is in \(path) (deleted when the ceremony ends)"))
        display.removeImage()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func anImageThatCannotBeWrittenIsSaidNotThrown() throws {
        let display = QRDisplay(
            image: QRImageFile(path: "/nonexistent-directory/qr.png"), printQRURL: false, stderrIsTerminal: false)
        guard case .failed(let message) = display.writeImage(of: Self.url) else {
            Issue.record("the write did not fail")
            return
        }
        #expect(message.hasPrefix("cannot write the QR code image"))
    }
}
