import Foundation
import Testing

@testable import hybrid_conformance

/// `--ca-file` in every mode of `hybrid-conformance`: the one shared option, so a file that
/// cannot be read is refused when the command line is parsed, before any tunnel is opened, and a
/// readable one reaches the run.
@Suite struct ConformanceCAFileTests {
    static let missing = "/nonexistent/hybrid-conformance-ca.pem"

    /// A readable (empty) PEM file, removed by the caller.
    static func readableFile() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString).pem").path
        try #require(FileManager.default.createFile(atPath: path, contents: Data()))
        return path
    }

    @Test func anUnreadableFileIsAUsageErrorInEveryMode() {
        #expect(throws: (any Error).self) { try ClientCommand.parse(["--ca-file", Self.missing]) }
        #expect(throws: (any Error).self) { try RelayCommand.parse(["ws://127.0.0.1:1", "--ca-file", Self.missing]) }
        #expect(throws: (any Error).self) { try PhoneCommand.parse(["FIDO:/0123", "--ca-file", Self.missing]) }
        #expect(throws: (any Error).self) {
            try HybridConformanceCommand.parseAsRoot(["client", "--ca-file", Self.missing])
        }
    }

    @Test func aReadableFileReachesEveryMode() throws {
        let path = try Self.readableFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try ClientCommand.parse(["--ca-file", path]).ca.path == path)
        #expect(try RelayCommand.parse(["ws://127.0.0.1:1", "--ca-file", path]).ca.path == path)
        let phone = try PhoneCommand.parse([
            "FIDO:/0123", "--ca-file", path, "--tunnel-url", "wss://relay.example:8443",
        ])
        let options = phone.runnerOptions(ble: .hci(adapter: nil))
        #expect(options.caFile == path)
        #expect(options.tunnelOrigin?.description == "wss://relay.example:8443")
    }
}
