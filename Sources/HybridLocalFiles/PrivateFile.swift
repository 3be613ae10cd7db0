#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Files that hold a secret (a QR code, whose contents are all a phone needs to answer in the
/// user's place): created 0600 with `O_CREAT | O_EXCL | O_NOFOLLOW`, never through a symbolic
/// link, never reusing what another user owns, inside a directory only this user can enter.
package enum PrivateFile {
    /// Writes `bytes` to a new file at `path`, mode 0600 whatever the umask. Something already at
    /// `path` is refused (``PrivateFileError``) unless it is a regular file of this user, which
    /// is replaced (unlinked, then created anew with `O_EXCL`, so a file planted in between is
    /// refused too).
    package static func write(_ bytes: [UInt8], to path: String) throws(PrivateFileError) {
        if try existingOwnFile(path) {
            guard unlink(path) == 0 || errno == ENOENT else {
                throw .system(operation: "unlink", path: path, errno: errno)
            }
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            if code == EEXIST { _ = try existingOwnFile(path) }  // names who planted it
            throw .system(operation: "create", path: path, errno: code)
        }
        defer { close(fd) }
        guard fchmod(fd, 0o600) == 0 else { throw .system(operation: "fchmod", path: path, errno: errno) }
        try writeAll(fd, bytes, path: path)
    }

    /// Opens `path` for appending, creating it 0600 if absent. An existing file must be this
    /// user's regular file, not readable by group or others; a FIFO is refused without blocking.
    /// - Returns: The open descriptor (close it).
    package static func openForAppending(_ path: String) throws(PrivateFileError) -> Int32 {
        try openChecked(path, flags: O_WRONLY | O_APPEND | O_CREAT, privateMode: 0o077)
    }

    /// Opens this user's existing regular file at `path` for reading, as trusted input: never
    /// through a symbolic link, never blocking on a FIFO, refusing another user's file and one the
    /// group or others may write (its contents could then be anyone's).
    /// - Returns: The open descriptor (close it), or `nil` when nothing is at `path`.
    package static func openForReading(_ path: String) throws(PrivateFileError) -> Int32? {
        do {
            return try openChecked(path, flags: O_RDONLY, privateMode: 0o022)
        } catch .system(_, _, ENOENT) {
            return nil
        }
    }

    /// `open(2)` with `O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC` added (`O_NONBLOCK` cleared once the
    /// file is known to be regular: a FIFO would block the open), then `fstat` checks: a regular
    /// file of the effective user, with none of the `privateMode` permission bits set.
    private static func openChecked(_ path: String, flags: Int32, privateMode: mode_t) throws(PrivateFileError) -> Int32
    {
        let fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP { throw .symbolicLink(path: path) }
            if code == ENXIO { throw .wrongType(path: path) }  // a FIFO opened for writing without a reader
            throw .system(operation: "open", path: path, errno: code)
        }
        var info = stat()
        var failure: PrivateFileError?
        if fstat(fd, &info) != 0 {
            failure = .system(operation: "fstat", path: path, errno: errno)
        } else if info.st_mode & S_IFMT != S_IFREG {
            failure = .wrongType(path: path)
        } else if info.st_uid != geteuid() {
            failure = .ownedByAnotherUser(path: path, owner: info.st_uid)
        } else if info.st_mode & privateMode != 0 {
            failure =
                privateMode & 0o044 != 0
                ? .readableByOthers(path: path, mode: UInt32(info.st_mode))
                : .writableByOthers(path: path, mode: UInt32(info.st_mode))
        } else if fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 {
            failure = .system(operation: "fcntl", path: path, errno: errno)
        }
        if let failure {
            close(fd)
            throw failure
        }
        return fd
    }

    /// Appends `bytes` to the private file at `path` (see ``openForAppending(_:)``).
    package static func append(_ bytes: [UInt8], to path: String) throws(PrivateFileError) {
        let fd = try openForAppending(path)
        defer { close(fd) }
        try writeAll(fd, bytes, path: path)
    }

    /// Deletes `path` if it is a regular file of this user (what ``write(_:to:)`` made); anything
    /// else is left alone.
    package static func remove(_ path: String) {
        if (try? existingOwnFile(path)) == true { unlink(path) }
    }

    /// Checks, without following links, that `path` is a directory of this user that group and
    /// others cannot enter.
    package static func checkPrivateDirectory(_ path: String) throws(PrivateFileError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .system(operation: "lstat", path: path, errno: errno) }
        if info.st_mode & S_IFMT == S_IFLNK { throw .symbolicLink(path: path) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .wrongType(path: path) }
        guard info.st_uid == geteuid() else { throw .ownedByAnotherUser(path: path, owner: info.st_uid) }
        guard info.st_mode & 0o077 == 0 else { throw .readableByOthers(path: path, mode: UInt32(info.st_mode)) }
    }

    /// Creates a fresh 0700 directory with an unpredictable name (`mkdtemp`) under `parent`.
    package static func makeTemporaryDirectory(in parent: String, prefix: String) throws(PrivateFileError) -> String {
        var trimmed = Substring(parent)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        var template = Array((trimmed + "/" + prefix + "XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard created != nil else { throw .system(operation: "mkdtemp", path: parent, errno: errno) }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        try checkPrivateDirectory(path)
        return path
    }

    /// Whether `path` is this user's regular file (`false` if nothing is there).
    /// - Throws: For a symbolic link, another user's entry or a non-file.
    private static func existingOwnFile(_ path: String) throws(PrivateFileError) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return false }
            throw .system(operation: "lstat", path: path, errno: errno)
        }
        if info.st_mode & S_IFMT == S_IFLNK { throw .symbolicLink(path: path) }
        guard info.st_uid == geteuid() else { throw .ownedByAnotherUser(path: path, owner: info.st_uid) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .wrongType(path: path) }
        return true
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(PrivateFileError) {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
                let count = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            #else
                let count = bytes[offset...].withUnsafeBytes { Musl.write(fd, $0.baseAddress, $0.count) }
            #endif
            if count < 0 {
                if errno == EINTR { continue }
                throw .system(operation: "write", path: path, errno: errno)
            }
            offset += count
        }
    }
}
