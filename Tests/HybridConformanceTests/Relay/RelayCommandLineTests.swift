import Foundation
import HybridConformance
import TestChildProcess
import Testing

/// The `hybrid-conformance relay` executable: exit status and the JUnit file it writes.
@Suite struct RelayCommandLineTests {
    /// `.build/<config>/`, where the test bundle and the executables are.
    static var productsDirectory: URL {
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL
    }

    /// Runs the binary with `arguments`; returns its exit status and standard output.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let binary = productsDirectory.appendingPathComponent("hybrid-conformance")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build hybrid-conformance first")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let result = try await ChildProcess.run(process)
        return (result.status, String(decoding: result.stdout, as: UTF8.self))
    }

    static func temporaryFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("relay-junit-\(UUID().uuidString).xml").path
    }

    @Test func passingRunExitsZeroAndWritesJUnit() async throws {
        let junit = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: junit) }
        let (status, output) = try await InProcessRelay.with { port in
            try await Self.run(["relay", "ws://127.0.0.1:\(port)", "--junit", junit, "--step-timeout", "30"])
        }
        #expect(status == 0, "\(output)")
        let total = RelayChecks.all.count
        let skipped = RelayChecks.tls.count + RelayChecks.slow.count
        let required = RelayChecks.all.filter(\.required).count
        #expect(
            output.contains(
                ": \(required) required, \(total - skipped) passed, 0 failed, 0 warnings, \(skipped) skipped"),
            "\(output)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(
            xml.contains(
                "<testsuite name=\"relay\" tests=\"\(total)\" failures=\"0\" errors=\"0\" skipped=\"\(skipped)\">"))
        for check in RelayChecks.all { #expect(xml.contains("name=\"\(check.id)\""), "\(check.id)") }
        #expect(!xml.contains("<failure"))
    }

    @Test func failingRunExitsNonZeroAndNamesTheCheck() async throws {
        let junit = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: junit) }
        let (status, output) = try await ScriptedRelay.with(fault: .acceptsPOST) { port in
            try await Self.run([
                "relay", "http://127.0.0.1:\(port)", "--junit", junit, "--json", "--step-timeout", "30",
            ])
        }
        #expect(status == 1, "\(output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect(json["succeeded"] as? Bool == false)
        let checks = try #require(json["checks"] as? [[String: Any]])
        let failed = checks.filter { $0["result"] as? String == "fail" }.compactMap { $0["id"] as? String }
        #expect(failed == [RelayChecks.methodGetOnly.id])
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("failures=\"1\""))
        // The failing testcase: its level and source properties, then the failure.
        let start = try #require(xml.range(of: "name=\"\(RelayChecks.methodGetOnly.id)\">"))
        let testcase = try #require(xml[start.upperBound...].range(of: "</testcase>"))
        let body = xml[start.upperBound..<testcase.lowerBound]
        #expect(body.contains("<property name=\"level\" value=\"required\"/>"))
        #expect(body.contains("<property name=\"source\" value=\"RFC 6455 §4.1"))
        #expect(body.contains("<failure message="))
    }

    @Test func badURLIsAUsageError() async throws {
        let (status, _) = try await Self.run(["relay", "ftp://127.0.0.1:1"])
        #expect(status == 64)
    }
}
