#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why ``readToEnd(_:limit:)``, ``openCheckedFile(atPath:flags:mode:trust:)`` or
/// ``readRegularFile(atPath:limit:trust:)`` stopped.
package enum FileDescriptorReadError: Error, Equatable {
    /// `open(2)`, `fstat(2)` or `read(2)` failed with this errno (`EISDIR` for a directory).
    case system(errno: Int32)
    /// More than the limit was there.
    case overLimit
    /// The path names something this program must not use (see ``FileRefusal``).
    case refused(FileRefusal)
}

/// Why a file was refused before anything was read from or written to it.
public enum FileRefusal: Hashable, Sendable, CustomStringConvertible {
    /// The path is a symbolic link, which is never followed for the store or its lock.
    case symbolicLink
    /// The path is a FIFO, socket or device, not a regular file (opening a FIFO would block).
    case notARegularFile
    /// The file belongs to another user (uid `owner`).
    case ownedByAnotherUser(owner: UInt32)
    /// Group or others may write the file (`mode`), so its contents cannot be trusted.
    case writableByOthers(mode: UInt32)

    /// What is wrong, for a user.
    public var description: String {
        switch self {
        case .symbolicLink: "it is a symbolic link"
        case .notARegularFile: "it is not a regular file (a FIFO, socket or device)"
        case .ownedByAnotherUser(let owner): "it belongs to uid \(owner), not to this user (uid \(geteuid()))"
        case .writableByOthers(let mode):
            "its mode \(String(mode & 0o7777, radix: 8)) lets the group or others write it"
        }
    }
}

/// How far a file must be trusted before it is used.
package enum FileTrust {
    /// Trusted input or state (the passkey store, its lock): not a symbolic link, this user's
    /// (effective uid), not writable by group or others.
    case ownedByThisUser
    /// Data checked after reading (an image): any regular file, through symbolic links.
    case anyRegularFile
}

/// Opens `path` with `flags` (plus `O_CLOEXEC` and `O_NONBLOCK`, then clears `O_NONBLOCK`, so a
/// FIFO planted at the path cannot block the open), then checks with `fstat` that it is a regular
/// file as `trust` requires. With ``FileTrust/ownedByThisUser`` the open also has `O_NOFOLLOW`.
/// - Returns: The open descriptor (close it).
/// - Throws: ``FileDescriptorReadError/system(errno:)`` when the open fails (`ENOENT`, or
///   `EISDIR` for a directory), ``FileDescriptorReadError/refused(_:)`` for what `trust` forbids.
package func openCheckedFile(
    atPath path: String, flags: Int32, mode: mode_t = 0, trust: FileTrust
) throws(FileDescriptorReadError) -> Int32 {
    let noFollow = trust == .ownedByThisUser ? O_NOFOLLOW : 0
    let fd = open(path, flags | noFollow | O_NONBLOCK | O_CLOEXEC, mode)
    guard fd >= 0 else {
        let code = errno
        if code == ELOOP && noFollow != 0 { throw .refused(.symbolicLink) }
        if code == ENXIO { throw .refused(.notARegularFile) }  // a FIFO opened for writing without a reader
        throw .system(errno: code)
    }
    var info = stat()
    var failure: FileDescriptorReadError?
    if fstat(fd, &info) != 0 {
        failure = .system(errno: errno)
    } else if info.st_mode & S_IFMT == S_IFDIR {
        failure = .system(errno: EISDIR)
    } else if info.st_mode & S_IFMT != S_IFREG {
        failure = .refused(.notARegularFile)
    } else if trust == .ownedByThisUser, info.st_uid != geteuid() {
        failure = .refused(.ownedByAnotherUser(owner: info.st_uid))
    } else if trust == .ownedByThisUser, info.st_mode & 0o022 != 0 {
        failure = .refused(.writableByOthers(mode: UInt32(info.st_mode)))
    } else if fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 {
        failure = .system(errno: errno)
    }
    if let failure {
        close(fd)
        throw failure
    }
    return fd
}

/// Reads `fd` to its end in 64 KiB steps, retrying on EINTR, failing past `limit` bytes.
package func readToEnd(_ fd: Int32, limit: Int) throws(FileDescriptorReadError) -> [UInt8] {
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

/// The bytes of the regular file at `path`, at most `limit` of them, opened as
/// ``openCheckedFile(atPath:flags:mode:trust:)`` describes (a directory is `EISDIR`; a FIFO or
/// device is refused without blocking).
package func readRegularFile(atPath path: String, limit: Int, trust: FileTrust) throws(FileDescriptorReadError)
    -> [UInt8]
{
    let fd = try openCheckedFile(atPath: path, flags: O_RDONLY, trust: trust)
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw .system(errno: errno) }
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
