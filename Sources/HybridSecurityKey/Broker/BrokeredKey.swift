import Foundation
import HybridKeyBroker
import HybridThreads
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The agent's end of the key broker (`hybrid-key-broker`): the security key as a device the
/// privileged broker owns. The agent never opens /dev/uhid; it asks the broker for its session's
/// key over a `SOCK_SEQPACKET` Unix socket, feeds it input reports and reads what programs send.
package final class BrokeredKey: Sendable {
    /// What happens to the key, as the broker tells it.
    package enum Event: Sendable, Equatable {
        /// The key exists (again) at this hidraw node.
        case created(hidraw: String)
        /// A program sent an output report (64 bytes).
        case output([UInt8])
        /// The last program closed the key.
        case closed
        /// The key was removed; in-flight requests are void. It comes back with ``created(hidraw:)``.
        case removed(KeyBrokerRefusal)
        /// No key for now; it comes with ``created(hidraw:)`` when the reason goes away.
        case refused(KeyBrokerRefusal)
        /// The broker closed the connection or sent something this agent cannot read: no key.
        case disconnected(String)
    }

    /// Where systemd's socket unit (`hybrid-key-broker.socket`) listens.
    package static let defaultSocketPath = "/run/hybrid-key-broker/socket"

    /// The broker's events, in order; finishes after ``Event/disconnected(_:)``.
    package let events: AsyncStream<Event>
    private let descriptor: Int32
    private let stopped = StopFlag()

    /// Connects to the broker at `socketPath` and asks for the key.
    /// - Throws: ``BrokeredKeyError``.
    package init(socketPath: String = BrokeredKey.defaultSocketPath) throws(BrokeredKeyError) {
        let fd = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .connect(path: socketPath, errno: errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(socketPath.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw .connect(path: socketPath, errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw .connect(path: socketPath, errno: code)
        }
        descriptor = fd
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        events = stream
        do { try Self.send(AgentMessage.requestKey(version: KeyBrokerMessage.version), on: fd) } catch {
            close(fd)
            throw error
        }
        let stopped = self.stopped
        Thread {
            nameCurrentThread("broker-reader")
            Self.readLoop(fd: fd, stopped: stopped, continuation: continuation)
        }.start()
    }

    deinit {
        shutdown()
        close(descriptor)
    }

    /// Whether the broker ended the connection (not this agent's ``shutdown()``).
    package var lostTheBroker: Bool { stopped.lost.withLock { $0 } }

    /// Sends one 64-byte input report to the programs that use the key.
    /// - Throws: ``BrokeredKeyError/send(errno:)``.
    package func send(_ report: [UInt8]) throws(BrokeredKeyError) {
        try Self.send(.inputReport(report), on: descriptor)
    }

    /// Ends the connection: the broker destroys the key. Idempotent.
    package func shutdown() {
        let first = stopped.value.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first { Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    private static func send(_ message: AgentMessage, on fd: Int32) throws(BrokeredKeyError) {
        let bytes = message.encoded
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw .send(errno: sent < 0 ? errno : EMSGSIZE) }
    }

    private static func readLoop(fd: Int32, stopped: StopFlag, continuation: AsyncStream<Event>.Continuation) {
        defer { continuation.finish() }
        var buffer = [UInt8](repeating: 0, count: KeyBrokerMessage.maximumSize)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_TRUNC)) }
            if count < 0 && errno == EINTR { continue }
            if stopped.value.withLock({ $0 }) { return }
            guard count > 0 else {
                let reason = count == 0 ? "the key broker closed the connection" : String(cString: strerror(errno))
                stopped.lost.withLock { $0 = true }
                continuation.yield(.disconnected(reason))
                return
            }
            guard count <= buffer.count else {
                stopped.lost.withLock { $0 = true }
                continuation.yield(.disconnected("the key broker sent an oversized message"))
                return
            }
            do {
                switch try BrokerMessage(decoding: Array(buffer[0..<count])) {
                case .created(let hidraw): continuation.yield(.created(hidraw: hidraw))
                case .outputReport(let report): continuation.yield(.output(report))
                case .closed: continuation.yield(.closed)
                case .removed(let reason): continuation.yield(.removed(reason))
                case .refused(let reason): continuation.yield(.refused(reason))
                }
            } catch {
                stopped.lost.withLock { $0 = true }
                continuation.yield(.disconnected("\(error)"))
                return
            }
        }
    }
}

/// Who ended the connection: the agent (`value`, so the reader does not report its own
/// shutdown) or the broker (`lost`).
private final class StopFlag: Sendable {
    let value = Mutex(false)
    let lost = Mutex(false)
}

/// Why the agent could not talk to the key broker.
package enum BrokeredKeyError: Error, Sendable, CustomStringConvertible {
    case connect(path: String, errno: Int32)
    case send(errno: Int32)

    package var description: String {
        switch self {
        case .connect(let path, let code):
            "cannot reach the key broker at \(path): \(String(cString: strerror(code)))"
                + (code == ENOENT || code == ECONNREFUSED
                    ? " (install it: sudo scripts/install.sh, or systemctl enable --now hybrid-key-broker.socket)" : "")
        case .send(let code): "cannot send to the key broker: \(String(cString: strerror(code)))"
        }
    }
}
