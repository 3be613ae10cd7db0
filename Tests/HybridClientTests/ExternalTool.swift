import Foundation

/// Runs independent programs (Python, zbarimg) that produce expected values for the tests.
enum ExternalTool {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `executable` (looked up on PATH through /usr/bin/env) with `arguments`, feeding `input`
    /// on stdin; returns stdout. Throws if the program cannot start or exits non-zero.
    static func run(_ executable: String, _ arguments: [String], input: [UInt8] = []) throws -> [UInt8] {
        let result = try runReportingStatus(executable, arguments, input: input)
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
    ) throws -> (status: Int32, stdout: [UInt8], stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        try stdin.fileHandleForWriting.write(contentsOf: Data(input))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, [UInt8](output), String(decoding: errors, as: UTF8.self))
    }

    /// Runs a Python 3 snippet; `input` arrives on stdin.
    static func python(_ script: String, input: [UInt8] = []) throws -> [UInt8] {
        try run("python3", ["-c", script], input: input)
    }

    /// The repository's `Tests/Interop` folder (the Python helpers).
    static var interopDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Interop")
    }

    /// True if Python can import py_webauthn (`pip install webauthn`).
    static var hasPyWebAuthn: Bool { (try? python("import webauthn, cbor2, cryptography")) != nil }

    /// True if `name` is on PATH.
    static func exists(_ name: String) -> Bool {
        (try? run("sh", ["-c", "command -v \(name)"])) != nil
    }
}
