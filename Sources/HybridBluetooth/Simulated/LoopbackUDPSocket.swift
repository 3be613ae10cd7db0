#if canImport(Glibc)
    import Glibc
#endif

/// A UDP socket bound to 127.0.0.1 (simulated air only). Owned by one thread; not `Sendable`.
final class LoopbackUDPSocket {
    let descriptor: Int32
    /// The bound port.
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BluetoothError.systemCallFailed(operation: "socket(AF_INET)", errno: errno) }
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw BluetoothError.systemCallFailed(operation: "bind 127.0.0.1", errno: code)
        }
        descriptor = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit {
        close(descriptor)
    }

    /// Sends one datagram to 127.0.0.1:`port`; errors (e.g. a vanished scanner) are ignored.
    func send(_ bytes: [UInt8], toPort port: UInt16) {
        var address = Self.loopback(port: port)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bytes.withUnsafeBytes { buffer in
                    sendto(
                        descriptor,
                        buffer.baseAddress,
                        buffer.count,
                        Int32(MSG_DONTWAIT),
                        socketAddress,
                        socklen_t(MemoryLayout<sockaddr_in>.size)
                    )
                }
            }
        }
    }

    /// Waits for a datagram or for `wake`. Returns `nil` once `wake` is signalled.
    func receive(wake: WakeSignal) throws -> [UInt8]? {
        var entries = [
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake.pollDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            if poll(&entries, 2, -1) < 0 {
                if errno == EINTR { continue }
                throw BluetoothError.systemCallFailed(operation: "poll", errno: errno)
            }
            if entries[1].revents != 0 { return nil }
            var buffer = [UInt8](repeating: 0, count: 2048)
            let count = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count >= 0 { return Array(buffer[0..<count]) }
            if errno == EAGAIN || errno == EINTR { continue }
            throw BluetoothError.systemCallFailed(operation: "recv", errno: errno)
        }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: INADDR_LOOPBACK.bigEndian)
        return address
    }
}
