import Foundation

/// The executables' standard output and error, the one place their text reaches a terminal:
/// messages for people pass through ``TerminalText/printableLines(_:)`` and JSON through
/// ``TerminalText/jsonEscaped(_:)``, so no text that came from input (a CXF file's names, a
/// peer's RP ID or user name, a verifier's origin) can carry an escape sequence, a carriage
/// return or a bidi override to the terminal, whichever message it ends up in. Writes are
/// unbuffered, so a harness reading a pipe sees each line at once.
package enum Console {
    /// Writes a message for people to standard output.
    package static func writeOutput(_ text: String) {
        FileHandle.standardOutput.write(Data(TerminalText.printableLines(text).utf8))
    }

    /// Writes a message for people to standard error.
    package static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(TerminalText.printableLines(text).utf8))
    }

    /// Writes `picture`, this program's own terminal drawing (the QR code in ANSI colours), as it
    /// is, then the message for people `text`, to standard error.
    package static func writeError(_ text: String, after picture: String) {
        FileHandle.standardError.write(Data((picture + TerminalText.printableLines(text)).utf8))
    }

    /// Writes JSON text (a document or lines) to standard output, its value unchanged.
    package static func writeJSONOutput(_ json: String) {
        FileHandle.standardOutput.write(Data(TerminalText.jsonEscaped(json).utf8))
    }

    /// Writes JSON text (a document or lines) to standard error, its value unchanged.
    package static func writeJSONError(_ json: String) {
        FileHandle.standardError.write(Data(TerminalText.jsonEscaped(json).utf8))
    }
}
