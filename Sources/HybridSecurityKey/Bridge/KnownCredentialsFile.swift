import Foundation
import HybridClient
import HybridCore
import HybridLocalFiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where ``KnownCredentials`` lives between runs, at the path its user chooses
/// (`hybrid-security-key` chooses `$XDG_STATE_HOME/hybrid-security-key/known-credentials`), mode
/// 0600 in a 0700 directory. The only I/O around the sans-IO policy: load once at start, save after each change.
/// The file holds credential IDs and RP ID hashes, nothing that signs or decrypts, but they say
/// which sites the user signs in to, so they are kept private like everything else.
package struct KnownCredentialsFile: Sendable {
    /// Larger files are not read (64 RPs × 16 IDs × 2 KiB of hex is 2 MiB at the very worst).
    package static let maximumSize = 4 << 20

    /// The file's path.
    package let path: String

    /// The file at `path` (nothing is read or created yet).
    package init(path: String) { self.path = path }

    /// The stored IDs; empty when there is no file yet. Only this user's regular file, not a
    /// symbolic link and not writable by group or others, is read (``PrivateFile/openForReading(_:)``):
    /// a FIFO planted at the path is refused instead of blocking the key's start.
    package func load() throws(KnownCredentialsFileError) -> KnownCredentials {
        let opened: Int32?
        do {
            opened = try PrivateFile.openForReading(path)
        } catch {
            throw .refused(error)
        }
        guard let fd = opened else { return KnownCredentials() }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(operation: "fstat", path: path, errno: errno) }
        guard info.st_size <= Self.maximumSize else { throw .tooLarge(path: path) }
        let data: Data
        do {
            data = try handle.read(upToCount: Self.maximumSize + 1) ?? Data()
        } catch {
            throw .io(operation: "read", path: path, errno: EIO)
        }
        guard data.count <= Self.maximumSize else { throw .tooLarge(path: path) }
        let bytes = [UInt8](data)
        return KnownCredentials(serialized: bytes)
    }

    /// Replaces the file with `credentials` (write a 0600 temporary file, rename it over the
    /// target), creating the directory with mode 0700 first.
    package func save(_ credentials: KnownCredentials) throws(KnownCredentialsFileError) {
        let directory = (path as NSString).deletingLastPathComponent
        try Self.createPrivateDirectory(directory)
        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .io(operation: "create", path: temporary, errno: errno) }
        let bytes = credentials.serialized
        var offset = 0
        var failure: KnownCredentialsFileError?
        if fchmod(fd, 0o600) != 0 { failure = .io(operation: "fchmod", path: temporary, errno: errno) }
        while failure == nil, offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno != EINTR { failure = .io(operation: "write", path: temporary, errno: errno) }
            } else {
                offset += written
            }
        }
        if close(fd) != 0, failure == nil { failure = .io(operation: "close", path: temporary, errno: errno) }
        if failure == nil, rename(temporary, path) != 0 { failure = .io(operation: "rename", path: path, errno: errno) }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// Creates `directory` and missing parents; the ones created get mode 0700.
    private static func createPrivateDirectory(_ directory: String) throws(KnownCredentialsFileError) {
        var current = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o700) != 0 && errno != EEXIST {
                throw .io(operation: "mkdir", path: current, errno: errno)
            }
        }
    }
}

/// Why the known-credentials file could not be read or written. The key works without it
/// (probes then claim the first listed ID).
package enum KnownCredentialsFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A system call failed with this errno.
    case io(operation: String, path: String, errno: Int32)
    /// The file is larger than ``KnownCredentialsFile/maximumSize``.
    case tooLarge(path: String)
    /// The file was not opened: a symbolic link, a FIFO or device, another user's file or one
    /// others may write (or the open failed).
    case refused(PrivateFileError)

    package var description: String {
        switch self {
        case .io(let operation, let path, let code): "\(operation) \(path): \(String(cString: strerror(code)))"
        case .tooLarge(let path): "\(path) is larger than \(KnownCredentialsFile.maximumSize) bytes"
        case .refused(let error): error.description
        }
    }
}
