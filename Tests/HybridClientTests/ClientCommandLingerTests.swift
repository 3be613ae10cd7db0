import Foundation
import HybridBluetooth
import HybridCore
import TestChildProcess
import TestFakePhone
import TestLoopbackRelay
import TestSupport
import Testing

@testable import HybridClient

/// The `hybrid-client` binary after its shutdown (protocol.md §5.4, §7.5): it prints the response
/// first, then lingers until the phone closes (or Ctrl-C).
@Suite(.timeLimit(.minutes(5))) struct ClientCommandLingerTests {
    static var productsDirectory: URL {
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL
    }

    /// What `hybrid-client create --json` did against a ``FakePhone``.
    struct Run {
        var status: Int32
        /// The first stdout line, read while the phone still held the tunnel open.
        var result: String?
        /// Further stdout lines.
        var moreOutput: [String]
        /// Progress lines after the QR code.
        var progress: [String]
        var phone: FakePhone.Record
        /// Whether the `--qr-file` image was still there after the process exited.
        var qrFileLeft: Bool
    }

    /// Runs the binary against a phone with `behaviour`; `afterResult` runs once the response has
    /// been read from its stdout (with the child process), before the phone is waited for.
    static func run(
        phone behaviour: @escaping @Sendable (_ resultRead: AsyncStream<Void>) -> FakePhone.Behaviour,
        afterResult: @escaping @Sendable (Process) -> Void = { _ in }
    ) async throws -> Run {
        let binary = productsDirectory.appendingPathComponent("hybrid-client")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build hybrid-client first")
        let air = try LoopbackCeremony.freshAir()
        return try await LoopbackRelay.with { relay in
            let process = Process()
            process.executableURL = binary
            process.arguments = [
                "create", "--origin", "https://example.com", "--user", "alice", "--ble", "sim", "--json",
                "--tunnel-server", "0=\(relay)", "--timeout", "50", "--qr-file", air.directory + "/qr.png",
            ]
            process.environment = ProcessInfo.processInfo.environment.merging(
                ["HYBRID_SIMULATED_AIR_DIR": air.directory, "HYBRID_ALLOW_SIMULATED_AIR": "1"]) { $1 }
            let (stdout, stderr) = try ChildProcess.startStreamingLines(process)
            var progress = stderr.makeAsyncIterator()
            let first = try #require(await progress.next(), "no progress on stderr")
            let qr = try #require(
                try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any], "not JSON: \(first)")
            let url = try #require(qr["url"] as? String, "no QR URL in \(first)")

            let (resultRead, resultReadSignal) = AsyncStream<Void>.makeStream()
            let phone = FakePhone(relay: relay, air: air, behaviour: behaviour(resultRead))
            async let served = capture { try await phone.serve(qrURL: url) }
            var output = stdout.makeAsyncIterator()
            let result = await output.next()
            resultReadSignal.yield()
            resultReadSignal.finish()
            afterResult(process)
            let record = try await served.get()
            let status = await ChildProcess.exitStatus(of: process)
            var rest: [String] = []
            while let line = await progress.next() { rest.append(line) }
            var more: [String] = []
            while let line = await output.next() { more.append(line) }
            return Run(
                status: status, result: result, moreOutput: more, progress: rest, phone: record,
                qrFileLeft: FileManager.default.fileExists(atPath: air.directory + "/qr.png"))
        }
    }

    /// Chromium's `LateLinkingDevice`: the phone sends its late update and closes only once this
    /// test has read the response from the CLI's stdout, so a CLI that held its output back until
    /// the linger ended would never get there (the time limit would fail the test). The CLI takes
    /// the update in and exits 0 on the phone's close.
    @Test func printsTheResponseThenLingersUntilThePhoneCloses() async throws {
        let run = try await Self.run(phone: { resultRead in
            .lateLinkingUpdate(gate: {
                for await _ in resultRead { break }
            })
        })
        #expect(run.status == 0, "stderr: \(run.progress)")
        let result = try #require(run.result, "nothing on stdout")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.utf8)) as? [String: Any])
        #expect(json["type"] as? String == "public-key")
        #expect(run.moreOutput.isEmpty)  // the response is the only output
        #expect(run.phone.shutdownReceived)
        #expect(run.progress.contains(#"{"event":"lingering","limitSeconds":180}"#), "stderr: \(run.progress)")
        #expect(!run.qrFileLeft, "the QR image outlived the ceremony")
        #expect(
            run.progress.last == #"{"event":"closed","lateUpdates":1,"reason":"phoneClosed"}"#,
            "stderr: \(run.progress)")
    }

    /// Ctrl-C while lingering (the phone keeps the tunnel open): the response is out, so the CLI
    /// ends the linger and exits 0 without an error.
    @Test func ctrlCWhileLingeringExitsZero() async throws {
        let run = try await Self.run(
            phone: { _ in .staysOpenAfterShutdown },
            afterResult: { process in kill(process.processIdentifier, SIGINT) })
        #expect(run.status == 0, "stderr: \(run.progress)")
        #expect(run.result?.contains(#""type":"public-key""#) == true)
        #expect(!run.progress.contains { $0.contains(#""event":"error""#) }, "stderr: \(run.progress)")
        #expect(!run.qrFileLeft, "the QR image outlived the ceremony")
    }
}
