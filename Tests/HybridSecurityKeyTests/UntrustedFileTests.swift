import Foundation
import HybridClient
import HybridLocalFiles
import HybridSecurityKey
import TestChildProcess
import Testing

@testable import hybrid_security_key

#if canImport(Glibc)
    import Glibc
#endif

/// `--known-credentials` and `--trace-reports` name files in places a user controls: a FIFO
/// planted there is refused at once (it used to block the key's start in `open(2)`), and the
/// known-credentials file, read as trusted input, must be this user's and writable by no one else.
@Suite(.timeLimit(.minutes(1)))
struct UntrustedFileTests {
    /// A fresh 0700 directory, removed by the caller.
    static func makeDirectory() -> String {
        let directory = NSTemporaryDirectory() + "untrusted-file-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        #expect(mkdir(directory, 0o700) == 0)
        return directory
    }

    @Test func aFIFOAsKnownCredentialsIsRefusedWithoutBlocking() throws {
        let directory = Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/known-credentials"
        let watchdog = try FIFOWatchdog(fifoAt: path)
        let result = Result { () throws(KnownCredentialsFileError) in try KnownCredentialsFile(path: path).load() }
        #expect(!watchdog.finish(), "load() blocked on the FIFO until the watchdog opened it")
        #expect(throws: KnownCredentialsFileError.refused(.wrongType(path: path))) { try result.get() }
    }

    @Test func aFIFOAsTheReportTraceIsRefusedWithoutBlocking() throws {
        let directory = Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/trace"
        let watchdog = try FIFOWatchdog(fifoAt: path)
        let result = Result { () throws(PrivateFileError) in try ReportTrace(path: path) }
        #expect(!watchdog.finish(), "opening the trace blocked on the FIFO until the watchdog opened it")
        #expect(throws: PrivateFileError.wrongType(path: path)) { _ = try result.get() }
    }

    /// Group-writable: anyone in the group could have written the IDs the key then offers.
    @Test func aKnownCredentialsFileOthersMayWriteIsRefused() throws {
        let directory = Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/known-credentials"
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(chmod(path, 0o620) == 0)
        #expect(throws: KnownCredentialsFileError.refused(.writableByOthers(path: path, mode: 0o100620))) {
            _ = try KnownCredentialsFile(path: path).load()
        }
    }

    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root (as in CI)"))
    func anotherUsersKnownCredentialsFileIsRefused() throws {
        let directory = Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/known-credentials"
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(chmod(path, 0o600) == 0)
        #expect(chown(path, 65534, 65534) == 0)
        #expect(throws: KnownCredentialsFileError.refused(.ownedByAnotherUser(path: path, owner: 65534))) {
            _ = try KnownCredentialsFile(path: path).load()
        }
    }

    @Test func aSymbolicLinkAsKnownCredentialsIsRefused() throws {
        let directory = Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/known-credentials"
        #expect(FileManager.default.createFile(atPath: directory + "/elsewhere", contents: Data()))
        #expect(symlink(directory + "/elsewhere", path) == 0)
        #expect(throws: KnownCredentialsFileError.refused(.symbolicLink(path: path))) {
            _ = try KnownCredentialsFile(path: path).load()
        }
    }
}
