import Foundation
import HybridAuthenticator
import HybridLocalFiles

/// Where the `FIDO:/…` text comes from: the argument, or standard input when it is `-` or absent.
enum QRCodeInput {
    /// Most bytes of standard input read while looking for the QR text (16 KiB; a hybrid QR
    /// text is a few hundred characters). Whatever stdin delivers, memory stays bounded.
    static let maximumInputBytes = 16 * 1024

    /// The QR text: `argument` itself, or the first non-empty line of standard input.
    /// - Throws: ``QRCodeInputError`` when standard input ends without a line, or brings more than
    ///   ``maximumInputBytes`` without one.
    static func read(argument: String?, promptOnTerminal: Bool) async throws(QRCodeInputError) -> String {
        if let argument, argument != "-" { return argument }
        if promptOnTerminal && isatty(STDIN_FILENO) == 1 {
            Console.writeError("Paste the FIDO:/ text of the QR code and press Enter: ")
        }
        // The blocking reads run on their own thread, off the concurrency pool.
        let result: Result<String, QRCodeInputError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(
                    returning: Result { () throws(QRCodeInputError) in
                        try firstNonEmptyLine(of: STDIN_FILENO, limit: maximumInputBytes)
                    })
            }
            thread.start()
        }
        return try result.get()
    }

    /// The first line of `fd` that is not blank, trimmed, reading at most `limit` bytes in all.
    static func firstNonEmptyLine(of fd: Int32, limit: Int) throws(QRCodeInputError) -> String {
        var consumed = 0
        while true {
            let line: [UInt8]?
            do {
                line = try readBoundedLine(fd, limit: limit - consumed)
            } catch {
                switch error {
                case .tooLong: throw .tooLong(limit: limit)
                case .system(let code): throw .unreadable(errno: code)
                }
            }
            guard let line else { throw .noInput }
            consumed += line.count + 1
            let trimmed = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { return trimmed }
            guard consumed < limit else { throw .tooLong(limit: limit) }
        }
    }
}

/// Why no QR text came from standard input.
enum QRCodeInputError: Error, Equatable, CustomStringConvertible {
    /// Standard input ended without a non-blank line.
    case noInput
    /// `limit` bytes of standard input held no complete non-blank line.
    case tooLong(limit: Int)
    /// Reading standard input failed with this errno.
    case unreadable(errno: Int32)

    var description: String {
        switch self {
        case .noInput:
            "no QR code: pass the FIDO:/ text as the argument or on standard input"
        case .tooLong(let limit):
            "no QR code in the first \(limit) bytes of standard input: the FIDO:/ text is one short line"
        case .unreadable(let errno):
            "cannot read the QR code from standard input: \(String(cString: strerror(errno)))"
        }
    }
}
