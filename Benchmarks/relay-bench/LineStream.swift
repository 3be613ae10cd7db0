import Foundation

/// Lines read from a file handle (a pipe) on a dedicated thread, so that blocking reads never
/// hold one of the few cooperative-pool threads.
enum LineStream {
    static func lines(of handle: FileHandle) -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let thread = Thread {
            var pending: [UInt8] = []
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                var start = pending.count
                pending += chunk
                var lineStart = 0
                while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: pending[lineStart..<newline], as: UTF8.self))
                    lineStart = newline + 1
                    start = lineStart
                }
                pending.removeFirst(lineStart)
            }
            continuation.finish()
        }
        thread.start()
        return stream
    }

    /// Writes `line` and a newline, unbuffered.
    static func write(_ line: String, to handle: FileHandle) {
        handle.write(Data((line + "\n").utf8))
    }
}
