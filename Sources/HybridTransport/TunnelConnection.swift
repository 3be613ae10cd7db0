import HybridCore
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// An open tunnel WebSocket: the upgrade response, a sender, and the inbound messages.
///
/// Obtained inside ``TunnelClient/withConnection(to:extraHeaders:_:)``; the connection is closed
/// when that call's body returns. ``messages`` can be iterated by one task while others send.
public struct TunnelConnection: Sendable {
    /// Headers of the server's `101 Switching Protocols` response.
    public let responseHeaders: HTTPHeaders
    /// Inbound binary messages, one element per WebSocket message. Single consumer.
    public let messages: TunnelMessages

    private let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>
    private let channel: any Channel
    private let closeFuture: EventLoopFuture<TunnelCloseInfo?>
    private let maxMessageSize: Int

    init(
        responseHeaders: HTTPHeaders,
        inbound: NIOAsyncChannelInboundStream<ByteBuffer>,
        outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>,
        channel: any Channel,
        closeFuture: EventLoopFuture<TunnelCloseInfo?>,
        maxMessageSize: Int
    ) {
        self.responseHeaders = responseHeaders
        self.messages = TunnelMessages(inbound: inbound)
        self.outbound = outbound
        self.channel = channel
        self.closeFuture = closeFuture
        self.maxMessageSize = maxMessageSize
    }

    /// The routing ID from the `X-caBLE-Routing-ID` response header of `/cable/new` (protocol.md
    /// §5.2): exactly one header, exactly 6 hex digits in either case.
    public func routingID() throws(TunnelClientError) -> RoutingID {
        let values = responseHeaders[TunnelWebSocket.routingIDHeader]
        guard let value = values.first else { throw .routingIDMissing }
        guard values.count == 1 else { throw .routingIDDuplicated }
        guard let routingID = RoutingID(hex: value) else { throw .routingIDInvalid }
        return routingID
    }

    /// Sends one binary message.
    ///
    /// - Throws: ``TunnelClientError/messageTooLarge`` above the size limit,
    ///   ``TunnelClientError/connectionClosed`` once the connection is closed.
    public func send(_ message: some Collection<UInt8>) async throws(TunnelClientError) {
        guard message.count <= maxMessageSize else { throw .messageTooLarge }
        var data = channel.allocator.buffer(capacity: message.count)
        // Contiguous collections (arrays) are copied in one go, not element by element.
        if message.withContiguousStorageIfAvailable({ data.writeBytes(UnsafeRawBufferPointer($0)) }) == nil {
            data.writeBytes(message)
        }
        let frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: data)
        do {
            try await outbound.write(frame)
            // The writer hands a frame written off the event loop to it as a job and learns that
            // the socket stopped taking data only there, so a sender faster than the loop would pile
            // up jobs without bound (2^24 conformance updates: 800 MB in a minute). Waiting for the
            // loop to take the frame keeps the writer's backpressure current before the next one.
            try await channel.eventLoop.submit {}.get()
        } catch {
            throw .connectionClosed
        }
    }

    /// How long ``close(code:timeout:)`` waits by default for the server to answer its close frame
    /// before closing the TCP connection anyway (a live peer that never answers).
    public static let closeEchoTimeout: Duration = .seconds(2)

    /// Sends a close frame with `code`, waits (bounded by `timeout`) for the server's reply, then
    /// closes the TCP connection.
    ///
    /// Works from a cancelled task too: the frame is written on the channel's event loop, not
    /// through the task. If the frame cannot be written (the connection is already gone), there is
    /// no reply to wait for and the call returns at once.
    public func close(code: WebSocketErrorCode = .normalClosure, timeout: Duration = TunnelConnection.closeEchoTimeout)
        async
    {
        let channel = self.channel
        if (try? await TunnelClientFrameHandler.sendClose(code: code, on: channel).get()) != nil {
            let timer = channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) { channel.close(promise: nil) }
            _ = try? await closeFuture.get()
            timer.cancel()
        }
        try? await channel.close()
    }

    /// Waits until the connection has closed and returns what the server's close frame said, or
    /// `nil` if the connection ended without one (dropped).
    public func closeInfo() async -> TunnelCloseInfo? {
        (try? await closeFuture.get()) ?? nil
    }
}

/// The inbound binary messages of a ``TunnelConnection``. Ends when the server closes; throws
/// ``TunnelClientError`` on a text frame, an oversized message or a protocol violation.
///
/// Single pass: make one iterator and keep it (pass it `inout` to helpers). A second iterator
/// throws ``TunnelClientError/messagesAlreadyIterated`` instead of reading.
public struct TunnelMessages: AsyncSequence, Sendable {
    /// One binary WebSocket message.
    public typealias Element = [UInt8]

    let inbound: NIOAsyncChannelInboundStream<ByteBuffer>
    private let iterated = NIOLockedValueBox(false)

    init(inbound: NIOAsyncChannelInboundStream<ByteBuffer>) {
        self.inbound = inbound
    }

    /// Reads the messages in order; make only one (see ``TunnelMessages``).
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator?

        /// The next message, or `nil` once the tunnel closed normally.
        public mutating func next() async throws(TunnelClientError) -> [UInt8]? {
            guard var base else { throw .messagesAlreadyIterated }
            defer { self.base = base }
            do {
                guard var buffer = try await base.next() else { return nil }
                return buffer.readBytes(length: buffer.readableBytes) ?? []
            } catch let error as TunnelClientError {
                throw error
            } catch {
                throw .protocolViolation(.rejected(UnexpectedError(error)))
            }
        }
    }

    /// The one iterator; a second one throws on its first read.
    public func makeAsyncIterator() -> AsyncIterator {
        let first = iterated.withLockedValue { iterated in
            defer { iterated = true }
            return !iterated
        }
        return AsyncIterator(base: first ? inbound.makeAsyncIterator() : nil)
    }
}
