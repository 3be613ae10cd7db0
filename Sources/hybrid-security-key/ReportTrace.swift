import Foundation
import HybridClient
import HybridCore
import HybridLocalFiles
import Synchronization

/// `--trace-reports FILE`: every 64-byte CTAPHID report a program writes to the key and every
/// report the key answers, one line each, `EPOCH program|key HEX` (seconds since 1970 with
/// microseconds). It shows what a host really sent and what the key answered, in-process: an
/// `strace` of /dev/uhid stops the key at every read, and uhid drops the reports it cannot queue
/// (32) while the key is stopped. The reports carry user names, RP IDs and credential IDs (never
/// the QR secret), so the file is private (``PrivateFile``: 0600, this user's, no symbolic link).
final class ReportTrace: Sendable {
    private let descriptor: Mutex<Int32>

    /// Opens `path` for appending, creating it mode 0600.
    init(path: String) throws(PrivateFileError) {
        descriptor = Mutex(try PrivateFile.openForAppending(path))
    }

    deinit { _ = descriptor.withLock { close($0) } }

    /// Appends one line for `report`, read from the program (`fromProgram`) or sent by the key.
    func record(_ report: [UInt8], fromProgram: Bool, at date: Date = Date()) {
        let line = Self.line(report, fromProgram: fromProgram, at: date)
        descriptor.withLock { fd in
            _ = line.withCString { write(fd, $0, strlen($0)) }
        }
    }

    /// `EPOCH program|key HEX\n`.
    static func line(_ report: [UInt8], fromProgram: Bool, at date: Date) -> String {
        String(format: "%.6f", date.timeIntervalSince1970) + (fromProgram ? " program " : " key ") + Hex.encode(report)
            + "\n"
    }
}
