import Foundation
import HybridClient
import HybridLocalFiles
import Testing

@testable import hybrid_security_key

/// `--trace-reports`: one line per report in the format `ci/browser-seckey/ctaphid_trace.py`
/// reads, in a private file.
@Suite struct ReportTraceTests {
    @Test func eachReportIsOneLineInAPrivateFile() throws {
        let directory = NSTemporaryDirectory() + "report-trace-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        #expect(mkdir(directory, 0o700) == 0)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/trace"
        let previous = umask(0o022)
        defer { umask(previous) }
        // CTAPHID_INIT on the broadcast channel (CTAP 2.2 §11.2.9.1.3), nonce 0102…08, zero padded.
        let initRequest: [UInt8] =
            [0xFF, 0xFF, 0xFF, 0xFF, 0x86, 0x00, 0x08, 1, 2, 3, 4, 5, 6, 7, 8] + Array(repeating: 0, count: 49)
        do {
            let trace = try ReportTrace(path: path)
            trace.record(initRequest, fromProgram: true, at: Date(timeIntervalSince1970: 1_795_749_654.5))
            trace.record([0x01, 0x02], fromProgram: false, at: Date(timeIntervalSince1970: 1_795_749_654.75))
        }
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(
            lines.first == "1795749654.500000 program ffffffff860008" + "0102030405060708"
                + String(repeating: "00", count: 49))
        #expect(lines.last == "1795749654.750000 key 0102")
    }

    @Test func aFileOfAnotherKindIsRefused() throws {
        let directory = NSTemporaryDirectory() + "report-trace-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        #expect(mkdir(directory, 0o700) == 0)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(symlink("/etc/passwd", directory + "/link") == 0)
        #expect(throws: PrivateFileError.self) { try ReportTrace(path: directory + "/link") }
    }
}
