#if canImport(Glibc)
    import Glibc
#endif

/// The broker's `SOCK_SEQPACKET` Unix socket: from systemd's socket activation (`LISTEN_FDS`),
/// or bound at a path (mode 0666: any local user may ask; the policy decides).
enum AgentListener {
    /// A datagram size no message reaches: anything longer is a violation.
    static let receiveBufferSize = 512

    /// The socket systemd passed (fd 3), if this process was socket-activated.
    static func fromSystemd(environment: [String: String]) -> Int32? {
        guard environment["LISTEN_PID"].flatMap({ Int32($0) }) == getpid(), environment["LISTEN_FDS"] == "1" else {
            return nil
        }
        let fd: Int32 = 3
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    /// A new socket bound at `path` (a stale socket there is replaced), mode 0666.
    ///
    /// The mode comes from the umask at `bind` (socket(7): the file's mode is 0777 less the umask),
    /// never from a `chmod` of the path afterwards: a path in a directory others can change could
    /// by then name another file, which root would make 0666. (`fchmod` on the socket changes the
    /// socket's own inode, not the file `bind` made.) A directory others may write to (`/tmp`) is
    /// refused all the same: someone else could replace the socket there.
    static func bind(path: String) throws(BrokerError) -> Int32 {
        try checkDirectory(of: path)
        let fd = socket(
            AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw .system("bind \(path)", ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        var status = stat()
        if lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK { unlink(path) }
        let previousMask = umask(0o111)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        let bindError = errno
        umask(previousMask)
        guard bound == 0 else { throw .system("bind \(path)", bindError) }
        guard listen(fd, 16) == 0 else { throw .system("listen", errno) }
        return fd
    }

    /// Refuses a socket path whose directory someone but root and this user could change.
    private static func checkDirectory(of path: String) throws(BrokerError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        var status = stat()
        guard stat(directory, &status) == 0 else { throw .system("stat \(directory)", errno) }
        guard (status.st_mode & S_IFMT) == S_IFDIR else { throw .system(directory, ENOTDIR) }
        let writableByOthers = status.st_mode & (S_IWGRP | S_IWOTH) != 0
        guard !writableByOthers, status.st_uid == 0 || status.st_uid == getuid() else {
            throw .unsafeDirectory(directory)
        }
    }

    /// Accepts one agent: its socket and the uid the kernel recorded at connect (`SO_PEERCRED`).
    static func accept(from listener: Int32) -> (fd: Int32, uid: UInt32)? {
        let fd = Glibc.accept(listener, nil, nil)
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        // struct ucred (socket(7)): pid_t pid, uid_t uid, gid_t gid; Glibc's module map hides it
        // behind _GNU_SOURCE, so it is read as three 32-bit fields.
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var size = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0,
            size == MemoryLayout.size(ofValue: credentials)
        else {
            close(fd)
            return nil
        }
        return (fd, credentials.uid)
    }

    /// What reading an agent's socket gave.
    enum Received {
        /// Nothing queued.
        case nothing
        /// The agent closed its end (or the socket failed).
        case endOfStream
        /// One datagram, whole.
        case datagram([UInt8])
        /// A datagram longer than any message: a violation.
        case oversized
    }

    /// One datagram from an agent, without blocking.
    static func receive(from fd: Int32) -> Received {
        var buffer = [UInt8](repeating: 0, count: receiveBufferSize)
        let count = buffer.withUnsafeMutableBytes {
            recv(fd, $0.baseAddress, $0.count, Int32(MSG_TRUNC) | Int32(MSG_DONTWAIT))
        }
        if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .nothing : .endOfStream }
        if count == 0 { return .endOfStream }
        return count > buffer.count ? .oversized : .datagram(Array(buffer[0..<count]))
    }

    /// Sends one datagram; false if the agent cannot take it (gone, or not reading).
    static func send(_ bytes: [UInt8], to fd: Int32) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            == bytes.count
    }
}

/// A failed system call of the broker itself.
enum BrokerError: Error, CustomStringConvertible {
    case system(String, Int32)
    /// The socket's directory is writable by others, or owned by someone else.
    case unsafeDirectory(String)

    var description: String {
        switch self {
        case .system(let what, let code): "\(what): \(String(cString: strerror(code)))"
        case .unsafeDirectory(let directory):
            "\(directory): another user can write to this directory or owns it; choose a directory only root (or you) can change"
        }
    }
}
