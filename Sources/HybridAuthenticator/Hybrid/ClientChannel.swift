import HybridBluetooth
import HybridCore
import HybridTransport

/// Where the client's session messages travel: the tunnel, or this phone's BLE L2CAP channel
/// (CTAP 2.3, protocol.md §3.4, §10.9). ``ClientServeLoop`` drives both the same way.
protocol ClientChannel {
    /// Which channel this is, for ``AuthenticatorEvent/connected(channel:)``.
    var kind: DataChannelKind { get }
    /// Whether any device nearby may have opened it (an L2CAP channel to the advertised PSM), so
    /// that it stands for the client only once a message authenticates. Only the client can reach
    /// the tunnel (its ID derives from the QR secret).
    var anyoneCanOpen: Bool { get }
    /// The next message from the client, or `nil` once it closed. `shape` is what the message can
    /// be and `accept` says whether a candidate is a whole message (the session can open it); only
    /// a channel whose framing is ambiguous (L2CAP's CRLF, §10.9) asks.
    mutating func next(expecting shape: L2CAPMessageShape, accepting accept: ([UInt8]) -> Bool) async throws
        -> [UInt8]?
    /// Sends one session message.
    func send(_ message: [UInt8]) async throws
    /// Closes the channel, waiting at most `timeout` for the other end to agree.
    func close(timeout: Duration) async
    /// Returns once the channel has closed, for whatever reason; callable from any task.
    var whenClosed: @Sendable () async -> Void { get }
    /// The error for a channel that closed before the session was over.
    func closedEarly(clientConnected: Bool) async -> AuthenticatorRunnerError
    /// Tells `tap` how the channel closed, if it is one the tap watches.
    func reportClose(to tap: any AuthenticatorTap) async
}

/// The tunnel: one WebSocket binary message per session message.
struct TunnelClientChannel: ClientChannel {
    let connection: TunnelConnection
    private var messages: TunnelMessages.AsyncIterator

    init(_ connection: TunnelConnection) {
        self.connection = connection
        messages = connection.messages.makeAsyncIterator()
    }

    var kind: DataChannelKind { .tunnel }
    var anyoneCanOpen: Bool { false }

    mutating func next(expecting _: L2CAPMessageShape, accepting _: ([UInt8]) -> Bool) async throws -> [UInt8]? {
        try await messages.next()
    }

    func send(_ message: [UInt8]) async throws { try await connection.send(message) }

    func close(timeout: Duration) async { await connection.close(timeout: timeout) }

    var whenClosed: @Sendable () async -> Void { { [connection] in _ = await connection.closeInfo() } }

    func closedEarly(clientConnected: Bool) async -> AuthenticatorRunnerError {
        .tunnelClosedEarly(clientConnected: clientConnected, close: await connection.closeInfo())
    }

    func reportClose(to tap: any AuthenticatorTap) async { tap.tunnelClosed(await connection.closeInfo()) }
}

/// An LE L2CAP channel a client opened to this phone's PSM: messages framed with CRLF (§10.9).
struct L2CAPClientChannel: ClientChannel {
    private var stream: L2CAPMessageStream

    /// - Throws: what ``L2CAPMessageStream/init(channel:)`` throws (an unreadable or too small MTU).
    init(_ channel: L2CAPChannel) throws {
        stream = try L2CAPMessageStream(channel: channel)
    }

    var kind: DataChannelKind { .l2cap }
    var anyoneCanOpen: Bool { true }

    mutating func next(expecting shape: L2CAPMessageShape, accepting accept: ([UInt8]) -> Bool) async throws
        -> [UInt8]?
    {
        try await stream.receive(expecting: shape, accepting: accept)
    }

    func send(_ message: [UInt8]) async throws { try await stream.send(message) }

    func close(timeout _: Duration) async {
        stream.close()
        await stream.whenClosed()
    }

    var whenClosed: @Sendable () async -> Void { stream.whenClosed }

    /// Shuts the channel down from any task (the reader then ends ``next(expecting:accepting:)``).
    var abort: @Sendable () -> Void { stream.closer }

    func closedEarly(clientConnected: Bool) async -> AuthenticatorRunnerError {
        .l2capClosedEarly(clientConnected: clientConnected)
    }

    func reportClose(to _: any AuthenticatorTap) async {}
}
