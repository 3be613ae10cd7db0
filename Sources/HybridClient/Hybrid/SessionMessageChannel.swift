import HybridBluetooth
import HybridCore
import HybridTransport

/// Where a client session's messages travel: the tunnel, or a phone's BLE L2CAP channel (CTAP 2.3,
/// protocol.md §3.4). The runner drives both the same way.
protocol SessionMessageChannel {
    /// Sends one session message.
    func send(_ message: [UInt8]) async throws
    /// The next message from the phone, or `nil` once it closed. `shape` is what the message can
    /// be and `accept` says whether a candidate is a whole message (the session can open it); only
    /// a channel whose framing is ambiguous (L2CAP's CRLF, §10.9) asks.
    mutating func next(expecting shape: L2CAPMessageShape, accepting accept: ([UInt8]) -> Bool) async throws
        -> [UInt8]?
}

/// The tunnel: one WebSocket binary message per session message.
struct TunnelMessageChannel: SessionMessageChannel {
    let connection: TunnelConnection
    var messages: TunnelMessages.AsyncIterator

    init(_ connection: TunnelConnection) {
        self.connection = connection
        messages = connection.messages.makeAsyncIterator()
    }

    func send(_ message: [UInt8]) async throws { try await connection.send(message) }

    mutating func next(expecting _: L2CAPMessageShape, accepting _: ([UInt8]) -> Bool) async throws -> [UInt8]? {
        try await messages.next()
    }
}

extension L2CAPMessageStream: SessionMessageChannel {
    mutating func next(expecting shape: L2CAPMessageShape, accepting accept: ([UInt8]) -> Bool) async throws
        -> [UInt8]?
    {
        try await receive(expecting: shape, accepting: accept)
    }
}
