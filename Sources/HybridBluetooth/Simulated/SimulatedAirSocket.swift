#if canImport(Glibc)
    import Glibc
#endif

/// A Unix datagram socket of the simulated air. A scanner's is bound to a path inside the air's
/// directory, which is this user's and mode 0700: the kernel lets only this user (and root) send
/// to it, where a UDP port on 127.0.0.1 took datagrams from every local user. An advertiser's is
/// unbound and only sends. Owned by one thread; not `Sendable`.
final class SimulatedAirSocket {
    let descriptor: Int32
    /// The path it is bound to (a scanner's), else `nil`.
    let path: String?

    /// An unbound socket (an advertiser's), or one bound to `path` (a scanner's; the path must
    /// not exist and fit `sockaddr_un`).
    init(boundTo path: String? = nil) throws(BluetoothError) {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .systemCallFailed(operation: "socket(AF_UNIX)", errno: errno) }
        if let path {
            guard var address = Self.address(path) else {
                close(fd)
                throw .unavailable(reason: "the simulated air path \(path) is too long for a socket")
            }
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
                }
            }
            guard bound else {
                let code = errno
                close(fd)
                throw .systemCallFailed(operation: "bind \(path)", errno: code)
            }
        }
        descriptor = fd
        self.path = path
    }

    deinit {
        close(descriptor)
    }

    /// Sends one datagram to the socket at `path`; errors (e.g. a vanished scanner) are ignored.
    func send(_ bytes: [UInt8], to path: String) {
        guard var address = Self.address(path) else { return }
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bytes.withUnsafeBytes { buffer in
                    sendto(
                        descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT), socketAddress,
                        socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
    }

    /// Waits for a datagram or for `wake`. Returns `nil` once `wake` is signalled.
    func receive(wake: WakeSignal) throws(BluetoothError) -> [UInt8]? {
        var entries = [
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake.pollDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            if poll(&entries, 2, -1) < 0 {
                if errno == EINTR { continue }
                throw .systemCallFailed(operation: "poll", errno: errno)
            }
            if entries[1].revents != 0 { return nil }
            var buffer = [UInt8](repeating: 0, count: 2048)
            let count = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count >= 0 { return Array(buffer[0..<count]) }
            if errno == EAGAIN || errno == EINTR { continue }
            throw .systemCallFailed(operation: "recv", errno: errno)
        }
    }

    /// `path` as a `sockaddr_un`, or `nil` when it does not fit (108 bytes with the NUL).
    private static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }
}
