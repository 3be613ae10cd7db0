#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why ``readToEnd(_:limit:)`` or ``readRegularFile(atPath:limit:)`` stopped.
enum FileDescriptorReadError: Error, Equatable {
    /// `open(2)`, `fstat(2)` or `read(2)` failed with this errno (`EISDIR` for a directory).
    case system(errno: Int32)
    /// More than the limit was there.
    case overLimit
}

/// Reads `fd` to its end in 64 KiB steps, retrying on EINTR, failing past `limit` bytes.
func readToEnd(_ fd: Int32, limit: Int) throws(FileDescriptorReadError) -> [UInt8] {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw .system(errno: errno)
        }
        if count == 0 { return bytes }
        guard bytes.count + count <= limit else { throw .overLimit }
        bytes += buffer[0..<count]
    }
}

/// The bytes of the file at `path`, at most `limit` of them (a directory is `EISDIR`; a device or
/// pipe that never ends stops at the limit).
func readRegularFile(atPath path: String, limit: Int) throws(FileDescriptorReadError) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw .system(errno: errno) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw .system(errno: errno) }
    guard info.st_mode & S_IFMT != S_IFDIR else { throw .system(errno: EISDIR) }
    guard info.st_size <= limit else { throw .overLimit }
    return try readToEnd(fd, limit: limit)
}

/// Why ``readBoundedLine(_:limit:)`` stopped.
package enum LineReadError: Error, Equatable {
    /// `read(2)` failed with this errno.
    case system(errno: Int32)
    /// `limit` bytes came without a newline.
    case tooLong(limit: Int)
}

/// Reads one line from `fd` one byte at a time (so nothing after the newline is consumed, and
/// later readers of `fd` see it), without the newline or a trailing CR. Returns `nil` at end of
/// input with nothing read; memory stays within `limit` bytes whatever `fd` delivers.
package func readBoundedLine(_ fd: Int32, limit: Int) throws(LineReadError) -> [UInt8]? {
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while true {
        let count = read(fd, &byte, 1)
        if count < 0 {
            if errno == EINTR { continue }
            throw .system(errno: errno)
        }
        if count == 0 { return line.isEmpty ? nil : line }
        if byte == 0x0a { break }
        guard line.count < limit else { throw .tooLong(limit: limit) }
        line.append(byte)
    }
    if line.last == 0x0d { line.removeLast() }
    return line
}
