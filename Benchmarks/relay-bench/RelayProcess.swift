import Foundation

/// The relay under test, as a child process (so its RSS is measured alone).
final class RelayProcess {
    let process = Process()
    private(set) var port = 0

    init(binary: String, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let handle = output.fileHandleForReading
        var text = ""
        while !text.contains("\n") {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let match = text.firstMatch(of: /listening on .*:(\d+)/), let port = Int(match.1) else {
            throw BenchError.relayDidNotStart(text)
        }
        self.port = port
    }

    /// Resident set size in bytes, from /proc.
    var residentBytes: Int { Self.residentBytes(of: process.processIdentifier) }

    /// Resident set size of process `pid` in bytes, from /proc (0 if unreadable).
    static func residentBytes(of pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }

    /// CPU time (user + system) used so far by process `pid`, in seconds, from /proc.
    static func cpuSeconds(of pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return 0 }
        // After the command name: state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// SIGTERM to our own child, then wait.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

enum BenchError: Error {
    case relayDidNotStart(String)
    case noFreeSourcePort
    case phoneUpgradeFailed
    case ceremonyBroke(String)
    case workerExited(Int)
}
