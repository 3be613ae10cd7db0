/// What went wrong talking to a bus: the bus itself, a peer's error reply, or a message we cannot
/// read. Callers map it onto their own layer's error (HybridBluetooth: `BluetoothError`), with what
/// they know that this module does not (which adapter a call was for).
package enum DBusFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// No such bus, the connection closed, or libdbus ran out of memory.
    case unavailable(reason: String)
    /// A peer answered a method call with the D-Bus error `name` (e.g. `org.bluez.Error.NotReady`).
    case errorReply(name: String, message: String)
    /// The bus refused a request (a match rule), or no reply came in time (`name` says which).
    case refused(name: String, message: String)
    /// A system call failed in an unexpected way (`errno` as returned by the OS).
    case systemCallFailed(operation: String, errno: Int32)
    /// A message holds a type this module does not read (unix fds), or a malformed container.
    case malformedMessage

    /// One line for a log.
    package var description: String {
        switch self {
        case .unavailable(let reason): "D-Bus unavailable: \(reason)"
        case .errorReply(let name, let message): "D-Bus error \(name): \(message)"
        case .refused(let name, let message): "D-Bus \(name): \(message)"
        case .systemCallFailed(let operation, let errno): "\(operation) failed (errno \(errno))"
        case .malformedMessage: "a D-Bus message this program cannot read"
        }
    }
}
