import ArgumentParser
import HybridClient
import HybridCommandLine
import HybridPresentation

/// `hybrid-client qr [-]`: draws a `FIDO:/…` string as a terminal QR code (scripts that run the
/// client with `--json` use it to show the code from the first event). The text comes from
/// standard input (`-` or no argument), so that it never stands on a command line where `ps`
/// shows it to every local user; an argument other than `-` is still taken as the text.
struct ShowQRCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qr",
        abstract: "Draw a FIDO:/… string (e.g. from the --json qr event) as a QR code on stdout.",
        discussion: """
            Give the text on standard input: echo "$url" | hybrid-client qr - (a command-line \
            argument is visible to every local user through ps; it still works, for compatibility).
            """
    )

    @Argument(help: "The text to encode; '-' or nothing reads its first non-blank line from standard input.")
    var text: String?

    func run() throws {
        let text: String
        if let argument = self.text, argument != "-" {
            text = argument
        } else {
            do { text = try QRTextInput.firstNonEmptyLine() } catch { throw ValidationError(error.description) }
        }
        do {
            print(TerminalQRRenderer().render(try QRCodeMatrix(encoding: text)), terminator: "")
        } catch {
            throw ValidationError("cannot encode the text as a QR code: \(error)")
        }
    }
}
