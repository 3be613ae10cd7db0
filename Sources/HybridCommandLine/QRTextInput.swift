import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The `FIDO:/…` text read from standard input (`-` or no argument), so that the QR code, the
/// session's only secret, never stands on a command line, where `ps` shows it to every local user.
package enum QRTextInput {
    /// Most bytes read while looking for the text (16 KiB; a hybrid QR text is a few hundred
    /// characters). Whatever the input delivers, memory stays bounded.
    package static let maximumInputBytes = 16 * 1024

    /// The first non-blank line of standard input, read on a thread of its own so that the
    /// blocking reads never hold a thread of the concurrency pool.
    /// - Throws: ``QRTextInputError``.
    package static func readStandardInput() async throws(QRTextInputError) -> String {
        let result: Result<String, QRTextInputError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: Result { () throws(QRTextInputError) in try firstNonEmptyLine() })
            }
            thread.start()
        }
        return try result.get()
    }

    /// The first non-blank line of `fd`, trimmed of spaces, tabs and CR, reading at most `limit`
    /// bytes, one at a time (nothing after the line is consumed). The cap counts every byte read,
    /// the newlines of blank lines included; a line of exactly `limit` bytes still fits.
    /// - Throws: ``QRTextInputError``.
    package static func firstNonEmptyLine(
        of fd: Int32 = STDIN_FILENO, limit: Int = maximumInputBytes
    ) throws(QRTextInputError) -> String {
        var line: [UInt8] = []
        var consumed = 0
        var byte: UInt8 = 0
        while true {
            let count = read(fd, &byte, 1)
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(errno: errno)
            }
            let atEnd = count == 0
            if !atEnd {
                consumed += 1
                if byte != 0x0a {
                    guard consumed <= limit else { throw .tooLong(limit: limit) }
                    line.append(byte)
                    continue
                }
            }
            let stripped = String(decoding: line, as: UTF8.self).trimmingASCIIBlanks()
            if !stripped.isEmpty { return stripped }
            if atEnd { throw .noInput }
            guard consumed < limit else { throw .tooLong(limit: limit) }
            line.removeAll(keepingCapacity: true)
        }
    }
}

/// Why no QR text came from standard input.
package enum QRTextInputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input ended without a non-blank line.
    case noInput
    /// `limit` bytes held no complete non-blank line.
    case tooLong(limit: Int)
    /// Reading failed with this errno.
    case unreadable(errno: Int32)

    /// One line for a user.
    package var description: String {
        switch self {
        case .noInput:
            "no QR code: give the FIDO:/ text on standard input ('-'), or as the argument"
        case .tooLong(let limit):
            "no QR code in the first \(limit) bytes of standard input: the FIDO:/ text is one short line"
        case .unreadable(let code):
            "cannot read the QR code from standard input: \(String(cString: strerror(code)))"
        }
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and carriage returns.
    fileprivate func trimmingASCIIBlanks() -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
