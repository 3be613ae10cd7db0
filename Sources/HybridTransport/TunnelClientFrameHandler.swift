import HybridCore
import NIOCore
import NIOWebSocket

/// Client-side WebSocket frame policy, between NIO's frame decoder/aggregator and the async
/// channel: answers pings, ends the stream on a close frame, turns binary messages into byte
/// buffers, and rejects text frames and oversized or malformed messages with a close frame.
///
/// The close information the server sent (or `nil` if the connection just dropped) completes
/// `closePromise` when the channel goes inactive.
final class TunnelClientFrameHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    private let closePromise: EventLoopPromise<TunnelCloseInfo?>
    private var receivedClose: TunnelCloseInfo?
    private var sentClose = false

    init(closePromise: EventLoopPromise<TunnelCloseInfo?>) {
        self.closePromise = closePromise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = Self.unwrapInboundIn(data)
        switch frame.opcode {
        case .binary:
            context.fireChannelRead(Self.wrapInboundOut(frame.unmaskedData))
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(Self.wrapOutboundOut(pong), promise: nil)
        case .pong:
            break
        case .connectionClose:
            receivedClose = TunnelCloseInfo(closeFrameData: frame.unmaskedData)
            if !sentClose {
                // Echo the code (RFC 6455 §5.5.1), then close the TCP connection.
                sentClose = true
                var echo = context.channel.allocator.buffer(capacity: 2)
                if let code = receivedClose?.code { echo.writeInteger(code) }
                let reply = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: echo)
                let channel = context.channel
                context.writeAndFlush(Self.wrapOutboundOut(reply)).whenComplete { _ in channel.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
        case .text:
            fail(context: context, error: .textFrame, code: .policyViolation)
        default:
            fail(
                context: context, error: .protocolViolation(.unexpectedOpcode(UInt8(webSocketOpcode: frame.opcode))),
                code: .protocolError)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
    }

    /// Sends the application's close frame with `code` from this handler's place in the pipeline
    /// (the server's reply is then not echoed). If a close frame already went out (an echo or an
    /// error close), the channel is closing on its own and nothing more is sent.
    ///
    /// The future succeeds once a close frame is out, so the server's reply (or the close that
    /// follows our own) will end the connection; it fails if the frame could not be written.
    private func sendClose(code: WebSocketErrorCode, context: ChannelHandlerContext) -> EventLoopFuture<Void> {
        guard !sentClose else { return context.eventLoop.makeSucceededVoidFuture() }
        sentClose = true
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)
        return context.writeAndFlush(Self.wrapOutboundOut(frame))
    }

    /// Sends the application's close frame on `channel`'s event loop (see the instance method).
    ///
    /// Unlike a write through the async channel's outbound writer, this does not depend on the
    /// calling task: a cancelled task still sends its close frame. Fails at once if the channel is
    /// gone (handler removed or socket closed).
    static func sendClose(code: WebSocketErrorCode, on channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.flatSubmit {
            do {
                let pipeline = channel.pipeline.syncOperations
                let handler = try pipeline.handler(type: TunnelClientFrameHandler.self)
                return handler.sendClose(
                    code: code, context: try pipeline.context(handlerType: TunnelClientFrameHandler.self))
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case NIOWebSocketError.invalidFrameLength,
            NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge:
            fail(context: context, error: .messageTooLarge, code: .messageTooLarge)
        case let error as TunnelClientError:
            context.fireErrorCaught(error)
        case is IOError:
            // Reset or broken pipe: the connection dropped without a close frame.
            context.fireErrorCaught(TunnelClientError.connectionClosed)
            context.close(promise: nil)
        default:
            fail(context: context, error: .protocolViolation(.rejected(UnexpectedError(error))), code: .protocolError)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        closePromise.succeed(receivedClose)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closePromise.succeed(receivedClose)  // no-op if already completed
    }

    private func fail(context: ChannelHandlerContext, error: TunnelClientError, code: WebSocketErrorCode) {
        context.fireErrorCaught(error)
        guard !sentClose else { return }
        let channel = context.channel
        sendClose(code: code, context: context).whenComplete { _ in channel.close(promise: nil) }
    }
}
