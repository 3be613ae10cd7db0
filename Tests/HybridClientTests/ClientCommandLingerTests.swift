import Foundation
import HybridBluetooth
import HybridCore
import TestChildProcess
import Testing

@testable import HybridClient

/// The `hybrid-client` binary against a late-linking phone (Chromium's `LateLinkingDevice`,
/// protocol.md §5.4, §7.5): it prints the response first, then lingers until the phone closes.
@Suite(.timeLimit(.minutes(1))) struct ClientCommandLingerTests {
    static var productsDirectory: URL {
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL
    }

    /// The phone sends its late update and closes only once this test has read the response from
    /// the CLI's stdout: a CLI that held its output back until the linger ended would never get
    /// there (the test's time limit would fail it). Then the CLI exits 0 on the phone's close.
    @Test func printsTheResponseThenLingersUntilThePhoneCloses() async throws {
        let binary = Self.productsDirectory.appendingPathComponent("hybrid-client")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build hybrid-client first")
        let air = try LoopbackCeremony.freshAir()
        try await LoopbackRelay.with { relay in
            let process = Process()
            process.executableURL = binary
            process.arguments = [
                "create", "--origin", "https://example.com", "--user", "alice", "--ble", "sim", "--json",
                "--tunnel-override", "0=\(relay)", "--timeout", "50",
            ]
            process.environment = ProcessInfo.processInfo.environment.merging(
                ["HYBRID_SIMULATED_AIR_DIR": air.directory]) { $1 }
            let (stdout, stderr) = try ChildProcess.startStreamingLines(process)
            var progress = stderr.makeAsyncIterator()
            let first = try #require(await progress.next(), "no progress on stderr")
            let qr = try #require(
                try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any], "not JSON: \(first)")
            let url = try #require(qr["url"] as? String, "no QR URL in \(first)")

            let (printed, printedSignal) = AsyncStream<Void>.makeStream()
            let phone = TestAuthenticator(
                relay: relay, air: air,
                behaviour: .lateLinkingUpdate(gate: {
                    for await _ in printed { break }
                }))
            async let served = capture { try await phone.serve(qrURL: url) }
            var output = stdout.makeAsyncIterator()
            let resultLine = await output.next()
            printedSignal.yield()
            printedSignal.finish()
            let record = try await served.get()
            let status = await ChildProcess.exitStatus(of: process)
            var rest: [String] = []
            while let line = await progress.next() { rest.append(line) }

            #expect(status == 0, "stderr: \(rest)")
            let result = try #require(resultLine, "nothing on stdout")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(result.utf8)) as? [String: Any])
            #expect(json["type"] as? String == "public-key")
            #expect(await output.next() == nil)  // the response is the only output
            #expect(record.shutdownReceived)
            #expect(rest.contains(#"{"event":"lingering","limitSeconds":180}"#), "stderr: \(rest)")
            // The client took the late update in and ended when the phone closed.
            #expect(rest.last == #"{"event":"closed","lateUpdates":1,"reason":"phoneClosed"}"#, "stderr: \(rest)")
        }
    }
}
