import HybridCore
import HybridLocalFiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Durable whole-file replacement: write a temporary file in the same directory, fsync it,
/// rename it over the target and fsync the directory. A crash at any point leaves either the
/// old file or the new one, never a mix; a leftover temporary file is ignored by readers and
/// removed by the next writer.
enum AtomicFile {
    /// Prefix of the temporary files written next to `path` (hidden, never read as a store).
    static func temporaryPrefix(for path: String) -> String {
        let (directory, name) = split(path)
        return directory + "/." + name + ".tmp-"
    }

    /// The file's bytes, or `nil` when it does not exist. Only this user's regular file, not a
    /// symbolic link and not writable by group or others, is read (``FileTrust/ownedByThisUser``).
    /// - Throws: ``PasskeyStoreError/tooLarge(limit:)`` past `limit` bytes,
    ///   ``PasskeyStoreError/refusedFile(path:_:)`` for a file that must not be trusted.
    static func contents(atPath path: String, limit: Int) throws(PasskeyStoreError) -> [UInt8]? {
        do {
            return try readRegularFile(atPath: path, limit: limit, trust: .ownedByThisUser)
        } catch {
            switch error {
            case .system(let code) where code == ENOENT: return nil
            case .system(let code): throw .io(operation: "read", path: path, errno: code)
            case .overLimit: throw .tooLarge(limit: limit)
            case .refused(let refusal): throw .refusedFile(path: path, refusal)
            }
        }
    }

    /// Removes the temporary files a writer killed mid-write left next to `path`. Call it only
    /// while holding the store's lock (``StoreLock``): then no live writer has one.
    static func removeTemporaryFiles(for path: String) throws(PasskeyStoreError) {
        let (directory, prefix) = split(temporaryPrefix(for: path))
        guard let stream = opendir(directory) else { throw .io(operation: "opendir", path: directory, errno: errno) }
        defer { closedir(stream) }
        var leftovers: [String] = []
        while let entry = readdir(stream) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if entryName.hasPrefix(prefix) { leftovers.append(entryName) }
        }
        for leftover in leftovers where unlink(directory + "/" + leftover) != 0 && errno != ENOENT {
            throw .io(operation: "unlink", path: directory + "/" + leftover, errno: errno)
        }
    }

    /// Replaces `path` with `bytes` (mode 0600) atomically and durably.
    /// - Parameter temporarySuffix: random text making the temporary name unique.
    static func replace(atPath path: String, with bytes: [UInt8], temporarySuffix: String) throws(PasskeyStoreError) {
        let temporary = temporaryPrefix(for: path) + temporarySuffix
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(operation: "create", path: temporary, errno: errno) }
        var failure: PasskeyStoreError? = nil
        if fchmod(fd, 0o600) != 0 { failure = .io(operation: "fchmod", path: temporary, errno: errno) }
        if failure == nil { failure = writeAll(fd, bytes, path: temporary) }
        if failure == nil, fsync(fd) != 0 { failure = .io(operation: "fsync", path: temporary, errno: errno) }
        if close(fd) != 0, failure == nil { failure = .io(operation: "close", path: temporary, errno: errno) }
        if failure == nil, rename(temporary, path) != 0 { failure = .io(operation: "rename", path: path, errno: errno) }
        if let failure {
            unlink(temporary)
            throw failure
        }
        try syncDirectory(split(path).directory)
    }

    /// Creates `directory` and missing parents with mode 0700.
    static func createDirectory(_ directory: String) throws(PasskeyStoreError) {
        var current = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            current += "/" + component
            var info = stat()
            if stat(current, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR { continue }
            if mkdir(current, 0o700) != 0 && errno != EEXIST {
                throw .io(operation: "mkdir", path: current, errno: errno)
            }
        }
    }

    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) -> PasskeyStoreError? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return .io(operation: "write", path: path, errno: errno)
            }
            offset += written
        }
        return nil
    }

    private static func syncDirectory(_ directory: String) throws(PasskeyStoreError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(operation: "open", path: directory, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .io(operation: "fsync", path: directory, errno: errno) }
    }
}
