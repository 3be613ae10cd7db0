import Foundation

/// Writes secret bytes to a new file that only its owner can read.
///
/// The file is created with `O_CREAT | O_EXCL | O_NOFOLLOW` and mode 0600 (and `fchmod` to 0600,
/// whatever the umask): an existing file, directory or symbolic link at the path (even a dangling
/// one) is refused, never opened, so nothing else can be overwritten or read through it. The
/// bytes are written whole and synced; on a failure after creation the file is removed.
package enum ExclusiveFile {
    /// Why the file was not written.
    package enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// Something (a file, a directory, a symbolic link) is at the path already.
        case exists(path: String)
        /// A system call failed.
        case io(operation: String, path: String, errno: Int32)

        package var description: String {
            switch self {
            case .exists(let path): "\(path) already exists; choose a new file name (nothing is overwritten)"
            case .io(let operation, let path, let code):
                "\(operation) \(path) failed (\(String(cString: strerror(code))))"
            }
        }
    }

    /// Creates `path` (mode 0600) holding `bytes`.
    package static func create(atPath path: String, contents bytes: [UInt8]) throws(Failure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            throw code == EEXIST || code == ELOOP
                ? .exists(path: path) : .io(operation: "create", path: path, errno: code)
        }
        do throws(Failure) {
            guard fchmod(fd, 0o600) == 0 else { throw .io(operation: "chmod", path: path, errno: errno) }
            try write(bytes, to: fd, path: path)
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
        guard close(fd) == 0 else {
            let code = errno
            unlink(path)
            throw .io(operation: "close", path: path, errno: code)
        }
    }

    /// Writes all of `bytes` to the open descriptor `fd` (retrying short writes and EINTR), then
    /// syncs it when it is a file (a pipe cannot be synced, and need not be).
    package static func write(_ bytes: [UInt8], to fd: Int32, path: String) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "write", path: path, errno: errno)
            }
            offset += written
        }
        guard fsync(fd) == 0 || errno == EINVAL || errno == EROFS else {
            throw .io(operation: "fsync", path: path, errno: errno)
        }
    }
}
