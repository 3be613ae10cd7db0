#if canImport(Glibc)
    import Glibc
#endif

/// A TCP socket bound to a kernel-chosen loopback port, for a child process to inherit and
/// listen on (HAProxy: `bind fd@0` with the socket as its standard input). The port is ours from
/// the moment of `bind`, so no other process can take it between choosing it and the child's
/// listen, as it could with "find a free port, close it, let the child bind it". Not listening
/// yet: a connect is refused until the child listens, so "accepts connections" means "ready".
package final class InheritedListener: @unchecked Sendable {
    package struct BindFailed: Error, CustomStringConvertible {
        package let call: String
        package let errno: Int32
        package var description: String { "\(call) failed: \(String(cString: strerror(errno)))" }
    }

    /// The descriptor to hand to the child (e.g. as `Process.standardInput`).
    package let descriptor: Int32
    package let port: Int

    package init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BindFailed(call: "socket", errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else {
            let failure = BindFailed(call: "bind", errno: errno)
            Glibc.close(fd)
            throw failure
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    private var closed = false

    /// Closes our copy once the child has inherited it (the child's stays open).
    package func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(descriptor)
    }

    deinit { close() }
}
