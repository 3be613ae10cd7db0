import ArgumentParser
import Foundation
import HybridAuthenticator
import Testing

@testable import HybridPresentation
@testable import hybrid_authenticator

/// `hybrid-authenticator --qr-image FILE`: parsing, exclusivity with the text argument, and what
/// the serve command reads before it opens the store.
@Suite(.timeLimit(.minutes(5)))
struct ServeCommandQRImageTests {
    func serve(_ arguments: [String]) throws -> ServeCommand {
        try #require(try HybridAuthenticatorCommand.parseAsRoot(arguments) as? ServeCommand)
    }

    @Test func theImageIsReadInsteadOfTheArgument() async throws {
        let command = try serve(["--qr-image", QRImageReaderTests.fixture("fido-screenshot.jpg"), "--json"])
        #expect(command.qrSource.qrCode == nil)
        #expect(try await command.readQRCode() == QRImageReaderTests.hybridURL())
        #expect(try serve(["serve", "--qr-image", "x.png"]).qrSource.qrImage == "x.png")
    }

    @Test(arguments: [["FIDO:/0123"], ["-"]])
    func theImageAndTheTextAreMutuallyExclusive(text: [String]) {
        #expect(throws: (any Error).self) {
            try HybridAuthenticatorCommand.parseAsRoot(text + ["--qr-image", "code.png"])
        }
        let message = HybridAuthenticatorCommand.message(
            for: ValidationError("give the QR code either as --qr-image or as the FIDO:/ text argument, not both"))
        #expect(message.contains("--qr-image"))
    }

    @Test func readErrorsSayWhatIsWrongWithTheImage() async throws {
        let missing = "/nonexistent/code.png"
        await #expect(throws: QRImageError.unreadable(path: missing, errno: ENOENT)) {
            _ = try await serve(["--qr-image", missing]).readQRCode()
        }
        let noCode = QRImageReaderTests.fixture("no-qr.png")
        await #expect(throws: QRImageError.noQRCode(path: noCode)) {
            _ = try await serve(["--qr-image", noCode]).readQRCode()
        }
        #expect("\(QRImageError.noQRCode(path: noCode))".contains("no QR code found"))
        #expect("\(QRImageError.notAnImage(path: "a.txt"))" == "a.txt is not a PNG or JPEG image")
    }

    @Test func aNonHybridCodeInTheImageFailsTheQRCheckWithItsUsualError() async throws {
        let command = try serve(["--qr-image", QRImageReaderTests.fixture("not-fido.png")])
        let text = try await command.readQRCode()
        #expect(throws: AuthenticatorRunnerError.invalidQRCode(.invalidPrefix)) {
            try AuthenticatorRunner.check(qrCode: text, options: command.runnerOptions(ble: .hci(adapter: nil)))
        }
    }

    @Test func helpDocumentsTheOption() {
        #expect(HybridAuthenticatorCommand.helpMessage().contains("--qr-image"))
        #expect(ServeCommand.helpMessage().contains("--qr-image <file>"))
    }
}
