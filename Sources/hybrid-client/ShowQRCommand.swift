import ArgumentParser
import HybridClient

/// `hybrid-client qr TEXT`: draws a `FIDO:/…` string as a terminal QR code (scripts that run the
/// client with `--json` use it to show the code from the first event).
struct ShowQRCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qr",
        abstract: "Draw a FIDO:/… string (e.g. from the --json qr event) as a QR code on stdout."
    )

    @Argument(help: "The text to encode.")
    var text: String

    func run() throws {
        do {
            print(TerminalQRRenderer().render(try QRCodeMatrix(encoding: text)), terminator: "")
        } catch {
            throw ValidationError("cannot encode the text as a QR code: \(error)")
        }
    }
}
