/// User inbound events the relay sends to a connection's pipeline (thread-safe to fire from any
/// event loop; each connection's handler acts on them on its own loop).

/// Close this connection with `code` (the peer ended, the TTL or lifetime ran out, shutdown).
struct RelayCloseCommand: Sendable {
    var code: RelayCloseCode
}

/// The `/cable/connect` side has joined: the `/cable/new` side should look up its peer.
struct RelayPeerJoined: Sendable {}

/// The peer's socket is writable again (or not): resume (or pause) reading.
struct RelayPeerWritability: Sendable {
    var writable: Bool
}

/// The handshake deadline passed before the connection was upgraded or answered.
struct RelayHandshakeTimedOut: Sendable {}
