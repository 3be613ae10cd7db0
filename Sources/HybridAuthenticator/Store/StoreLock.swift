import HybridLocalFiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one-writer-at-a-time lock of a store file: `flock(2)` on `.<name>.lock` beside it.
///
/// Every change to a ``FilePasskeyStore`` holds it from re-reading the file to renaming the new
/// one into place, so changes from several processes (or several store instances in one process:
/// `flock` locks belong to the open file description) apply one after the other and none is
/// lost. Readers do not lock: the atomic rename gives them the old file or the new one. The lock
/// file is created once (mode 0600) and never removed, since removing it would let two writers
/// lock two different files. The kernel drops the lock when its holder dies, even by SIGKILL.
enum StoreLock {
    /// The lock file guarding `path`.
    static func lockPath(for path: String) -> String {
        let (directory, name) = AtomicFile.split(path)
        return directory + "/." + name + ".lock"
    }

    /// Runs `body` holding the exclusive lock of the store at `path`, waiting for it if another
    /// writer holds it (a write takes milliseconds). The directory must exist.
    static func withExclusiveLock<T>(
        of path: String, _ body: () throws(PasskeyStoreError) -> T
    ) throws(PasskeyStoreError) -> T {
        let lockPath = lockPath(for: path)
        // O_CLOEXEC: a child process started meanwhile must not inherit (and keep) the lock.
        // Never through a symbolic link, and only this user's regular file: a link planted as the
        // lock would make the creation happen elsewhere, a FIFO would block the open.
        let fd: Int32
        do {
            fd = try openCheckedFile(atPath: lockPath, flags: O_RDWR | O_CREAT, mode: 0o600, trust: .ownedByThisUser)
        } catch {
            switch error {
            case .system(let code): throw .io(operation: "open", path: lockPath, errno: code)
            case .overLimit: throw .io(operation: "open", path: lockPath, errno: EFBIG)
            case .refused(let refusal): throw .refusedFile(path: lockPath, refusal)
            }
        }
        defer { close(fd) }  // closing the last descriptor releases the lock
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw .io(operation: "flock", path: lockPath, errno: errno) }
        }
        return try body()
    }
}
