import Foundation
import HybridLocalFiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A line-oriented console for a user interaction on the terminal (hybrid-authenticator's).
package protocol TerminalConsole: Sendable {
    /// Shows `text` (no newline added).
    func write(_ text: String) async
    /// Reads one line without its newline; nil at end of input. `hidingInput` turns echo off.
    func readLine(hidingInput: Bool) async -> String?
}

/// The controlling terminal `/dev/tty`, or standard input and standard error when there is none.
/// Blocking reads run on their own thread, not on the Swift concurrency pool.
package struct DeviceTerminal: TerminalConsole {
    /// Longest line read, in bytes; a longer one reads as no answer (`nil`), so memory stays bounded.
    package static let maximumLineLength = 4096

    /// The process's controlling terminal (`/dev/tty`).
    package init() {}

    /// Writes `text` to the terminal.
    package func write(_ text: String) async {
        let fd = open("/dev/tty", O_WRONLY | O_CLOEXEC)
        let target = fd >= 0 ? fd : STDERR_FILENO
        defer { if fd >= 0 { close(fd) } }
        Self.writeAll(target, Array(text.utf8))
    }

    /// Reads one line, without echo if `hidingInput`; `nil` at end of input or if there is no terminal.
    package func readLine(hidingInput: Bool) async -> String? {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: Self.blockingReadLine(hidingInput: hidingInput))
            }
            thread.start()
        }
    }

    private static func blockingReadLine(hidingInput: Bool) -> String? {
        let tty = open("/dev/tty", O_RDONLY | O_CLOEXEC)
        let fd = tty >= 0 ? tty : STDIN_FILENO
        defer { if tty >= 0 { close(tty) } }
        var saved = termios()
        let hide = hidingInput && isatty(fd) == 1 && tcgetattr(fd, &saved) == 0
        if hide {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(fd, TCSAFLUSH, &silent)
        }
        defer { if hide { tcsetattr(fd, TCSAFLUSH, &saved) } }
        // A longer line (or an error) counts as no answer.
        guard let line = try? readBoundedLine(fd, limit: maximumLineLength) else { return nil }
        return String(decoding: line, as: UTF8.self)
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}

/// The POSIX `write`, named apart from ``TerminalConsole/write(_:)``.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, buffer, count)
}
