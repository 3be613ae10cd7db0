import Foundation
import HybridBluetooth
import HybridClient
import TestChildProcess
import Testing

/// The QR code's secrecy through the `hybrid-client` binary: the QR code stays out of a redirected
/// stderr (a log, the journal), its `--qr-file` image is 0600 and is deleted when the ceremony ends
/// (timeout, SIGTERM), and `--ble sim` needs `HYBRID_ALLOW_SIMULATED_AIR=1`.
@Suite(.timeLimit(.minutes(5))) struct ClientQRSecrecyTests {
    static var binary: URL { ClientCommandLingerTests.productsDirectory.appendingPathComponent("hybrid-client") }

    /// A process for `create` on a fresh simulated air that no phone listens on.
    static func process(_ extra: [String], air: SimulatedAir, allowSimulatedAir: Bool = true) -> Process {
        let process = Process()
        process.executableURL = binary
        process.arguments = ["create", "--origin", "https://example.com", "--user", "alice", "--ble", "sim"] + extra
        var environment = ProcessInfo.processInfo.environment
        environment["HYBRID_SIMULATED_AIR_DIR"] = air.directory
        environment["HYBRID_ALLOW_SIMULATED_AIR"] = allowSimulatedAir ? "1" : nil
        process.environment = environment
        return process
    }

    @Test func aRedirectedStderrNeverHoldsTheQRCodeAndTheImageIsDeletedAtTheTimeout() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build hybrid-client first")
        let air = try LoopbackCeremony.freshAir()
        defer { try? FileManager.default.removeItem(atPath: air.directory) }
        let log = air.directory + "/stderr.log"
        let image = air.directory + "/qr.png"
        #expect(FileManager.default.createFile(atPath: log, contents: nil))
        let process = Self.process(["--timeout", "1", "--qr-file", image], air: air)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let status = await ChildProcess.exitStatus(of: process)
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(status == 2, "stderr: \(text)")  // timed out: nobody scanned
        #expect(!text.uppercased().contains("FIDO:/"), "the QR URL went to a redirected stderr: \(text)")
        #expect(!text.contains("█") && !text.contains("▀"), "the QR picture went to a redirected stderr")
        #expect(text.contains("QR code not shown"))
        #expect(!FileManager.default.fileExists(atPath: image), "the QR image outlived the ceremony")
    }

    /// `--print-qr-url` asks for it explicitly.
    @Test func printQRURLShowsItAnyway() async throws {
        let air = try LoopbackCeremony.freshAir()
        defer { try? FileManager.default.removeItem(atPath: air.directory) }
        let output = try await ChildProcess.run(Self.process(["--timeout", "1", "--print-qr-url"], air: air))
        #expect(String(decoding: output.stderr, as: UTF8.self).contains("FIDO:/"))
    }

    @Test func sigtermDeletesThe0600Image() async throws {
        let air = try LoopbackCeremony.freshAir()
        defer { try? FileManager.default.removeItem(atPath: air.directory) }
        let image = air.directory + "/qr.png"
        let previous = umask(0o022)
        let process = Self.process(["--timeout", "50", "--json", "--qr-file", image], air: air)
        let (_, stderr) = try ChildProcess.startStreamingLines(process)
        umask(previous)
        var lines = stderr.makeAsyncIterator()
        let first = try #require(await lines.next())
        #expect(first.hasPrefix(#"{"event":"qr""#))  // --json: the URL was asked for
        // The image is written before the QR event is reported.
        var info = stat()
        #expect(lstat(image, &info) == 0 && info.st_mode & 0o777 == 0o600 && info.st_uid == geteuid())
        kill(process.processIdentifier, SIGTERM)
        while await lines.next() != nil {}
        let status = await ChildProcess.exitStatus(of: process)
        #expect(status == 130)
        #expect(!FileManager.default.fileExists(atPath: image), "the QR image outlived SIGTERM")
    }

    @Test func theSimulatedAirNeedsTheEnvironmentSwitch() async throws {
        let air = try LoopbackCeremony.freshAir()
        defer { try? FileManager.default.removeItem(atPath: air.directory) }
        let output = try await ChildProcess.run(Self.process(["--timeout", "1"], air: air, allowSimulatedAir: false))
        let text = String(decoding: output.stderr, as: UTF8.self)
        #expect(output.status == 64, "stderr: \(text)")
        #expect(text.contains("HYBRID_ALLOW_SIMULATED_AIR=1"))
        #expect(!text.contains("FIDO:/"))
    }
}
