import Foundation
import TestChildProcess
import TestManualClock
import Testing

@testable import HybridClient
@testable import hybrid_client

/// `--timeout` covers reading and parsing the options file: an options input that never ends (stdin
/// from a pipe) cannot hold the client past its limit.
@Suite struct OptionsDeadlineTests {
    /// Work that has not finished when the clock passes the limit gives TimedOut, at once: the
    /// work is blocked until the test releases it, the clock is advanced by hand.
    @Test func unfinishedParsingTimesOut() async throws {
        let clock = ManualClock()
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        let run = Task {
            try await OptionsDeadline.run(within: .seconds(3), clock: clock) {
                release.wait()
                return 1
            }
        }
        await clock.sleeperArrived()
        clock.advance(by: .seconds(3))
        await #expect(throws: OptionsDeadline.TimedOut(limit: .seconds(3))) { try await run.value }
    }

    /// Work that finishes before the limit gives its value, and its error stays its own.
    @Test func finishedParsingGivesItsResult() async throws {
        let clock = ManualClock()
        #expect(try await OptionsDeadline.run(within: .seconds(3), clock: clock) { 42 } == 42)
        await #expect(throws: ParseFailure.bad) {
            try await OptionsDeadline.run(within: .seconds(3), clock: clock) { () throws -> Int in
                throw ParseFailure.bad
            }
        }
    }

    /// End to end: `--options -` on a stdin that never ends (the extreme of a huge options JSON)
    /// exits with the timeout status, 2, after `--timeout`, and says why.
    @Test(arguments: ["create", "get"]) func endlessOptionsOnStdinHitTheTimeout(command: String) async throws {
        let process = Process()
        process.executableURL = Self.productsDirectory.appendingPathComponent("hybrid-client")
        process.arguments = [
            command, "--options", "-", "--origin", "https://example.com", "--ble", "sim", "--timeout", "1",
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(["HYBRID_ALLOW_SIMULATED_AIR": "1"]) { $1 }
        let stdin = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Some JSON, and then nothing, ever: the pipe stays open until the process is gone.
        stdin.fileHandleForWriting.write(
            Data(#"{"challenge": "AAAA", "rpId": "example.com", "allowCredentials": ["#.utf8))
        let status = await Self.exitStatus(of: process)
        try? stdin.fileHandleForWriting.close()
        let message = String(decoding: await ChildProcess.readToEnd(stderr.fileHandleForReading), as: UTF8.self)
        #expect(status == 2)
        #expect(message.contains("timed out after 1 s reading and parsing the options"), "\(message)")
    }

    enum ParseFailure: Error { case bad }

    static var productsDirectory: URL {
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL
    }

    static func exitStatus(of process: Process) async -> Int32 {
        await ChildProcess.exitStatus(of: process)
    }
}
