#if canImport(Glibc)
import Glibc
#endif

/// Why ``readToEnd(_:limit:)`` stopped.
enum FileDescriptorReadError: Error {
    /// `read(2)` failed with this errno.
    case system(errno: Int32)
    /// More than the limit was there.
    case overLimit
}

/// Reads `fd` to its end in 64 KiB steps, retrying on EINTR, failing past `limit` bytes.
func readToEnd(_ fd: Int32, limit: Int = .max) throws(FileDescriptorReadError) -> [UInt8] {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw .system(errno: errno)
        }
        if count == 0 { return bytes }
        bytes += buffer[0..<count]
        guard bytes.count <= limit else { throw .overLimit }
    }
}
