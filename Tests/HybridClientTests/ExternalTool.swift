import Foundation
import TestChildProcess

/// Runs independent programs (Python, zbarimg) that produce expected values for the tests.
enum ExternalTool {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `executable` (looked up on PATH through /usr/bin/env) with `arguments`, feeding `input`
    /// on stdin; returns stdout. Throws if the program cannot start or exits non-zero. Waits off
    /// the cooperative thread pool (``ChildProcess``).
    static func run(_ executable: String, _ arguments: [String], input: [UInt8] = []) async throws -> [UInt8] {
        let result = try await runReportingStatus(executable, arguments, input: input)
        guard result.status == 0 else {
            throw Failure(description: "\(executable) exited \(result.status): \(result.stderr)")
        }
        return result.stdout
    }

    /// Like ``run(_:_:input:)`` but returns the exit status and stderr instead of throwing on failure.
    static func runReportingStatus(
        _ executable: String,
        _ arguments: [String],
        input: [UInt8] = []
    ) async throws -> (status: Int32, stdout: [UInt8], stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        let output = try await ChildProcess.run(process, input: Data(input))
        return (output.status, [UInt8](output.stdout), String(decoding: output.stderr, as: UTF8.self))
    }

    /// Runs a Python 3 snippet; `input` arrives on stdin.
    static func python(_ script: String, input: [UInt8] = []) async throws -> [UInt8] {
        try await run("python3", ["-c", script], input: input)
    }

    /// The repository's `Tests/Interop` folder (the Python helpers).
    static var interopDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Interop")
    }

    /// True if Python can import py_webauthn (`pip install webauthn`).
    static var hasPyWebAuthn: Bool {
        get async { (try? await python("import webauthn, cbor2, cryptography")) != nil }
    }

    /// True if `name` is on PATH.
    static func exists(_ name: String) async -> Bool {
        (try? await run("sh", ["-c", "command -v \(name)"])) != nil
    }
}
