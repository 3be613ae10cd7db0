import Foundation

/// Runs and waits for child processes without blocking a Swift-concurrency thread.
///
/// The cooperative pool is as wide as the machine has cores (two in CI) and every test of a
/// `swift test` run shares it: a test that blocks one in `Process.waitUntilExit()` or
/// `FileHandle.readDataToEndOfFile()` stalls all the others, until their time limits cancel them.
/// Here every blocking call runs on a thread of its own and the calling task suspends.
public enum ChildProcess {
    /// What a finished child printed, and its termination status.
    public struct Output: Sendable {
        public var status: Int32
        public var stdout: Data
        public var stderr: Data
    }

    /// Runs `body` on a new thread and suspends until it returns.
    public static func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    /// Waits for the running `process` to exit; its termination status.
    public static func exitStatus(of process: Process) async -> Int32 {
        let process = UncheckedProcess(process)
        return await offPool {
            process.value.waitUntilExit()
            return process.value.terminationStatus
        }
    }

    /// Reads `handle` until end of file.
    public static func readToEnd(_ handle: FileHandle) async -> Data {
        let handle = UncheckedHandle(handle)
        return await offPool { handle.value.readDataToEndOfFile() }
    }

    /// Starts `process` (configured except for its standard streams) with `input` on stdin and
    /// pipes for stdout and stderr, reads both to the end while it runs, and waits for it.
    public static func run(_ process: Process, input: Data = Data()) async throws -> Output {
        // Pipes and spawn under one lock: Foundation's pipes are not close-on-exec, so a child
        // spawned by another thread in between would inherit this one's write ends and hold
        // them open (its reader would see end of file only when that other child exits).
        let (stdin, stdout, stderr) = try spawnLock.withLock {
            let pipes = (Pipe(), Pipe(), Pipe())
            process.standardInput = pipes.0
            process.standardOutput = pipes.1
            process.standardError = pipes.2
            try process.run()
            return pipes
        }
        async let output = readToEnd(stdout.fileHandleForReading)
        async let errors = readToEnd(stderr.fileHandleForReading)
        let writer = UncheckedHandle(stdin.fileHandleForWriting)
        await offPool {
            try? writer.value.write(contentsOf: input)
            try? writer.value.close()
        }
        let (out, err) = await (output, errors)
        return Output(status: await exitStatus(of: process), stdout: out, stderr: err)
    }

    /// Starts `process` (configured except for its standard streams) with stdin from /dev/null and
    /// returns its stdout and stderr as lines, each read on a thread of its own as the child
    /// writes them; a stream ends when the child closes it. Wait with ``exitStatus(of:)``.
    public static func startStreamingLines(
        _ process: Process
    ) throws -> (stdout: AsyncStream<String>, stderr: AsyncStream<String>) {
        let (stdout, stderr) = try spawnLock.withLock {
            let pipes = (Pipe(), Pipe())
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = pipes.0
            process.standardError = pipes.1
            try process.run()
            return pipes
        }
        return (lines(of: stdout.fileHandleForReading), lines(of: stderr.fileHandleForReading))
    }

    private static func lines(of handle: FileHandle) -> AsyncStream<String> {
        let (lines, sink) = AsyncStream<String>.makeStream()
        let handle = UncheckedHandle(handle)
        Thread {
            var pending = Data()
            while case let chunk = handle.value.availableData, !chunk.isEmpty {
                pending += chunk
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    sink.yield(String(decoding: pending[..<newline], as: UTF8.self))
                    pending = Data(pending[pending.index(after: newline)...])
                }
            }
            if !pending.isEmpty { sink.yield(String(decoding: pending, as: UTF8.self)) }
            sink.finish()
        }.start()
        return lines
    }
}

private let spawnLock = NSLock()

/// `Process` and `FileHandle` are not `Sendable`; each is used by one thread at a time here.
private struct UncheckedProcess: @unchecked Sendable {
    let value: Process
    init(_ value: Process) { self.value = value }
}

private struct UncheckedHandle: @unchecked Sendable {
    let value: FileHandle
    init(_ value: FileHandle) { self.value = value }
}
