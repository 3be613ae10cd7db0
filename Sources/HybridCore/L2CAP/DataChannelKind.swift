/// The data channel a session ended up on.
public enum DataChannelKind: String, Hashable, Sendable {
    /// The WebSocket tunnel through a relay.
    case tunnel
    /// A BLE L2CAP connection-oriented channel to the phone.
    case l2cap
}
