/// Why the state machine answered a request with CTAPHID_ERROR. Each case carries what the
/// packet got wrong, and maps to one ``CTAPHIDErrorCode`` on the wire.
public enum CTAPHIDProtocolError: Error, Hashable, Sendable {
    /// A command this key does not implement (MSG, KEEPALIVE/ERROR from the host, vendor, unknown).
    case invalidCommand(CTAPHIDCommand)
    /// A parameter out of range (LOCK for more than 10 s).
    case invalidParameter(CTAPHIDCommand)
    /// A payload length the command does not allow (INIT ≠ 8 bytes, LOCK ≠ 1, empty CBOR), or an
    /// announced length beyond 7609 bytes.
    case invalidLength(CTAPHIDCommand?, length: Int)
    /// A continuation packet out of order, or a new initialization packet on a channel that is
    /// still sending a message.
    case invalidSequence(expected: UInt8?, received: UInt8?)
    /// No continuation packet arrived in time for a message being sent.
    case messageTimeout
    /// Another channel is sending a message, waiting for the phone, or holds a lock.
    case channelBusy
    /// Channel 0, a non-INIT command on the broadcast channel, or a channel never allocated.
    case invalidChannel(UInt32)

    /// The CTAPHID_ERROR payload byte.
    public var code: CTAPHIDErrorCode {
        switch self {
        case .invalidCommand: .invalidCommand
        case .invalidParameter: .invalidParameter
        case .invalidLength: .invalidLength
        case .invalidSequence: .invalidSequence
        case .messageTimeout: .messageTimeout
        case .channelBusy: .channelBusy
        case .invalidChannel: .invalidChannel
        }
    }
}

/// A request the state machine refused: the channel the ERROR goes to and the reason.
public struct CTAPHIDRejection: Hashable, Sendable {
    /// The channel the CTAPHID_ERROR is sent to.
    public var channel: UInt32
    /// Why the request was refused; its ``CTAPHIDProtocolError/code`` is the error byte sent.
    public var error: CTAPHIDProtocolError

    /// The CTAPHID_ERROR message to send.
    public var message: CTAPHIDMessage {
        CTAPHIDMessage(channel: channel, command: .error, payload: [error.code.rawValue])
    }
}
