import Foundation

/// Where the `FIDO:/…` text comes from: the argument, or standard input when it is `-` or absent.
enum QRCodeInput {
    /// The QR text: `argument` itself, or the first non-empty line of standard input.
    /// - Throws: `QRCodeInputError` when standard input ends without a line.
    static func read(argument: String?, promptOnTerminal: Bool) async throws -> String {
        if let argument, argument != "-" { return argument }
        if promptOnTerminal && isatty(STDIN_FILENO) == 1 {
            Console.writeError("Paste the FIDO:/ text of the QR code and press Enter: ")
        }
        guard let line = await firstNonEmptyLine() else { throw QRCodeInputError() }
        return line
    }

    /// Reads standard input on its own thread, so the blocking read stays off the concurrency pool.
    private static func firstNonEmptyLine() async -> String? {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                var found: String?
                while let line = Swift.readLine(strippingNewline: true) {
                    let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
                    if !trimmed.isEmpty {
                        found = trimmed
                        break
                    }
                }
                continuation.resume(returning: found)
            }
            thread.start()
        }
    }
}

struct QRCodeInputError: Error, CustomStringConvertible {
    var description: String { "no QR code: pass the FIDO:/ text as the argument or on standard input" }
}
