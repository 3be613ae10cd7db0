/// The two ends of a tunnel, named after the endpoint each one opened.
enum TunnelSide: Sendable, Hashable, CustomStringConvertible {
    /// The authenticator (phone), which opened `/cable/new`.
    case new
    /// The client (desktop), which opened `/cable/connect`.
    case connect

    var other: TunnelSide { self == .new ? .connect : .new }

    var description: String { self == .new ? "new" : "connect" }
}

/// Why one side of a tunnel ended; decides the close code its peer receives.
enum TunnelEndReason: Sendable, Equatable {
    /// The side sent a close frame.
    case closeFrame
    /// The TCP connection ended without a close frame.
    case dropped
    /// The relay closed the side with this code.
    case relay(RelayCloseCode)

    /// The code the other side is closed with.
    var codeForPeer: RelayCloseCode {
        switch self {
        case .closeFrame: .peerClosed
        case .dropped: .peerDropped
        case .relay(let code): code.codeForPeer
        }
    }
}
